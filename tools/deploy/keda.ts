/**
 * KEDA helpers for the deployment-file tests. kubernetes-models knows only the built-in Kubernetes kinds, and no KEDA
 * schema package is installed, so a ScaledObject is checked here against the fields of KEDA's CRD (keda.sh/v1alpha1,
 * KEDA 2.12 and later) that these manifests may use. Unknown fields are errors: the CRD's schema is structural, so
 * the API server prunes or (with kubectl's default strict field validation) refuses them, and a misspelt field would
 * otherwise silently do nothing. The HPA behavior block is what KEDA copies into the HPA it makes, so it is checked
 * as that HPA, with the Kubernetes schemas (kubernetes.ts).
 */
import { schemaErrors, typeErrors, type K8sObject } from './kubernetes';

type Shape =
  | 'string'
  | 'int32'
  | 'boolean'
  | { object: Record<string, Shape>; required?: string[] }
  | { array: Shape }
  | { map: Shape }
  /** Passed through here; checked as the HPA KEDA makes (hpaOf). */
  | 'hpaBehavior';

const SCALED_OBJECT: Shape = {
  object: {
    apiVersion: 'string',
    kind: 'string',
    metadata: {
      object: { name: 'string', namespace: 'string', labels: { map: 'string' }, annotations: { map: 'string' } },
      required: ['name'],
    },
    spec: {
      object: {
        scaleTargetRef: {
          object: { apiVersion: 'string', kind: 'string', name: 'string', envSourceContainerName: 'string' },
          required: ['name'],
        },
        pollingInterval: 'int32',
        cooldownPeriod: 'int32',
        initialCooldownPeriod: 'int32',
        idleReplicaCount: 'int32',
        minReplicaCount: 'int32',
        maxReplicaCount: 'int32',
        fallback: { object: { failureThreshold: 'int32', replicas: 'int32' }, required: ['failureThreshold', 'replicas'] },
        advanced: {
          object: {
            restoreToOriginalReplicaCount: 'boolean',
            horizontalPodAutoscalerConfig: { object: { name: 'string', behavior: 'hpaBehavior' } },
          },
        },
        triggers: {
          array: {
            object: {
              type: 'string',
              name: 'string',
              metricType: 'string',
              useCachedMetrics: 'boolean',
              // Every value of a trigger's metadata is a string in the CRD, numbers included ("3", not 3).
              metadata: { map: 'string' },
              authenticationRef: { object: { name: 'string', kind: 'string' }, required: ['name'] },
            },
            required: ['type', 'metadata'],
          },
        },
      },
      required: ['scaleTargetRef', 'triggers'],
    },
  },
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
};

/** Metadata keys KEDA's Prometheus scaler reads (KEDA 2.12+ docs, "Prometheus" scaler); anything else is ignored by it. */
const PROMETHEUS_METADATA = new Set([
  'serverAddress', 'query', 'queryParameters', 'threshold', 'activationThreshold', 'namespace', 'customHeaders',
  'ignoreNullValues', 'unsafeSsl',
]);

const METRIC_TYPES = new Set(['AverageValue', 'Value', 'Utilization']);

function shapeErrors(value: unknown, shape: Shape, at: string): string[] {
  if (shape === 'hpaBehavior') return [];
  if (shape === 'string') return typeof value === 'string' ? [] : [`${at}: expected a string, got ${JSON.stringify(value)}`];
  if (shape === 'boolean') return typeof value === 'boolean' ? [] : [`${at}: expected a boolean, got ${JSON.stringify(value)}`];
  if (shape === 'int32') {
    return Number.isInteger(value) && Math.abs(value as number) < 2 ** 31 ? [] : [`${at}: expected an int32, got ${JSON.stringify(value)}`];
  }
  if ('array' in shape) {
    if (!Array.isArray(value)) return [`${at}: expected a list`];
    return value.flatMap((item, i) => shapeErrors(item, shape.array, `${at}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at}: expected an object`];
  const entries = Object.entries(value as Record<string, unknown>);
  if ('map' in shape) return entries.flatMap(([k, v]) => shapeErrors(v, shape.map, `${at}.${k}`));
  const errors: string[] = [];
  for (const [k, v] of entries) {
    const field = shape.object[k];
    errors.push(...(field === undefined ? [`${at}.${k}: unknown field`] : shapeErrors(v, field, `${at}.${k}`)));
  }
  for (const k of shape.required ?? []) if (!(k in (value as object))) errors.push(`${at}.${k}: required`);
  return errors;
}

export interface ScaledObject extends K8sObject {
  spec: {
    scaleTargetRef: { apiVersion?: string; kind?: string; name: string };
    pollingInterval?: number;
    cooldownPeriod?: number;
    minReplicaCount?: number;
    maxReplicaCount?: number;
    advanced?: { horizontalPodAutoscalerConfig?: { name?: string; behavior?: Record<string, unknown> } };
    triggers: { type: string; name?: string; metricType?: string; metadata: Record<string, string> }[];
  };
}

/** The HorizontalPodAutoscaler KEDA makes for a ScaledObject (named keda-hpa-<name> unless the spec names it). */
export function hpaOf(so: ScaledObject): K8sObject {
  const config = so.spec.advanced?.horizontalPodAutoscalerConfig;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: config?.name ?? `keda-hpa-${so.metadata.name}`, namespace: so.metadata.namespace },
    spec: {
      scaleTargetRef: {
        apiVersion: so.spec.scaleTargetRef.apiVersion ?? 'apps/v1',
        kind: so.spec.scaleTargetRef.kind ?? 'Deployment',
        name: so.spec.scaleTargetRef.name,
      },
      // KEDA's defaults: 0 (the HPA gets 1; KEDA itself scales to 0) and 100.
      minReplicas: Math.max(1, so.spec.minReplicaCount ?? 0),
      maxReplicas: so.spec.maxReplicaCount ?? 100,
      ...(config?.behavior ? { behavior: config.behavior } : {}),
    },
  };
}

/** Everything wrong with a ScaledObject as KEDA's CRD and admission webhook see it; empty when it would be accepted. */
export function scaledObjectErrors(so: ScaledObject): string[] {
  const label = `ScaledObject/${so.metadata?.name}`;
  if (so.apiVersion !== 'keda.sh/v1alpha1') return [`${label}: apiVersion ${so.apiVersion} is not keda.sh/v1alpha1`];
  const errors = shapeErrors(so, SCALED_OBJECT, label);
  if (errors.length > 0) return errors;
  const { minReplicaCount = 0, maxReplicaCount = 100, triggers } = so.spec;
  if (minReplicaCount > maxReplicaCount) errors.push(`${label}: minReplicaCount ${minReplicaCount} > maxReplicaCount ${maxReplicaCount}`);
  const names = triggers.map((t) => t.name).filter(Boolean);
  if (new Set(names).size !== names.length) errors.push(`${label}: trigger names must be unique`);
  triggers.forEach((trigger, i) => {
    const at = `${label}.spec.triggers[${i}]`;
    if (trigger.metricType !== undefined && !METRIC_TYPES.has(trigger.metricType)) errors.push(`${at}.metricType: ${trigger.metricType}`);
    if (trigger.type !== 'prometheus') return;
    for (const key of Object.keys(trigger.metadata)) if (!PROMETHEUS_METADATA.has(key)) errors.push(`${at}.metadata.${key}: not a Prometheus scaler setting`);
    for (const key of ['serverAddress', 'query', 'threshold']) if (!trigger.metadata[key]) errors.push(`${at}.metadata.${key}: required`);
    for (const key of ['threshold', 'activationThreshold']) {
      const text = trigger.metadata[key];
      // KEDA parses these with strconv.ParseFloat.
      if (text !== undefined && !(/^\d+(\.\d+)?$/.test(text) && Number.isFinite(Number(text)))) errors.push(`${at}.metadata.${key}: "${text}" is not a number`);
    }
    for (const key of ['ignoreNullValues', 'unsafeSsl']) {
      const text = trigger.metadata[key];
      if (text !== undefined && !['true', 'false'].includes(text)) errors.push(`${at}.metadata.${key}: "${text}" is not true or false`);
    }
  });
  const hpa = hpaOf(so);
  errors.push(...schemaErrors(hpa).map((e) => `${label} (its HPA): ${e}`), ...typeErrors([hpa]).map((e) => `${label} (its HPA): ${e}`));
  return errors;
}

/**
 * Which autoscalers set each Deployment's replicas: plain HPAs and the HPAs KEDA makes from ScaledObjects. More than
 * one on a Deployment means each rewrites the count the other set (KEDA's webhook refuses a ScaledObject next to an
 * HPA, but only when the webhook is installed, and it knows nothing of an HPA applied after it).
 */
export function autoscalersByDeployment(objects: readonly K8sObject[]): Map<string, string[]> {
  const byTarget = new Map<string, string[]>();
  const add = (target: { apiVersion?: string; kind?: string; name: string }, by: string) => {
    if ((target.kind ?? 'Deployment') !== 'Deployment') return;
    byTarget.set(target.name, [...(byTarget.get(target.name) ?? []), by]);
  };
  for (const obj of objects) {
    if (obj.kind === 'HorizontalPodAutoscaler') {
      add((obj as K8sObject & { spec: { scaleTargetRef: { kind: string; name: string } } }).spec.scaleTargetRef, `HorizontalPodAutoscaler/${obj.metadata.name}`);
    } else if (obj.kind === 'ScaledObject') {
      add((obj as ScaledObject).spec.scaleTargetRef, `ScaledObject/${obj.metadata.name}`);
    }
  }
  return byTarget;
}
