/**
 * The deployment files (docker-compose.yml, .env.example, .dockerignore, apps/*\/Dockerfile, infra/k8s) cannot be run
 * here (no Docker engine, no cluster), so they are checked statically:
 *  - every YAML file parses (no duplicate keys);
 *  - docker-compose.yml, interpolated with .env.example as Compose would, against the Compose specification schema;
 *  - every Kubernetes object against the Kubernetes API schemas and types (kubernetes-models), and KEDA's
 *    ScaledObjects against the fields of KEDA's CRD (keda.ts);
 *  - the autoscalers: each worker pool scaled by one ScaledObject whose Prometheus query, run over the gauge the
 *    gateway really exports (promql.ts), counts exactly that pool's jobs;
 *  - consistency with the code: every environment variable set is one the app reads, ports match PORT, probe paths
 *    are the documented ones, workers publish no ports, WORKER_QUEUES names real job kinds;
 *  - the health-check script against fake servers.
 */
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { ALL_JOB_KINDS } from '../../libs/jobs/src/contracts';
import { createBullQueue } from '../../libs/queue/src/bull/bull-queue';
import { startBullWorkers } from '../../libs/queue/src/bull/bull-workers';
import { JOB_POLICY } from '../../libs/jobs/src/job-registry';
import { waitUntil } from '../../libs/queue/src/testing/concurrency-probe';
import { deleteKeys, randomPrefix, TEST_REDIS_URL } from '../../libs/queue/src/testing/redis-test-env';
import { createProcessors, type ProcessorDeps } from '../../libs/jobs/src/processors';
import { candidateKind, parseShardSets, PUBLIC_CANDIDATES_KIND } from '../../libs/jobs/src/public-index/shard-sets';
import { COLLECTION_CANDIDATES_KIND, collectionCandidateKind, parseCollectionShardSets } from '../../libs/jobs/src/match/collection-index';
import { Metrics } from '../../libs/runtime/src/metrics';
import { composeValidator, dockerignoreKeeps, interpolate, parseDotEnv, type Interpolation } from './compose';
import { autoscalersByDeployment, scaledObjectErrors, type ScaledObject } from './keda';
import { quantity, schemaErrors, typeErrors, type K8sObject } from './kubernetes';
import { evaluate, scrape, type Sample } from './promql';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');

const PORT = 8080;
const LIVE_PATH = '/health/live';
const READY_PATH = '/health/ready';
const APPS = ['gateway', 'worker'] as const;
const HEALTHCHECK_SCRIPT = 'infra/docker/healthcheck.cjs';

// ---------------------------------------------------------------------------------------------------------------
// What the code reads

/** Environment variables the gateway and workers read: libs/runtime/src/config.ts and apps/worker/src/main.ts. */
function variablesTheAppReads(): Set<string> {
  const names = new Set<string>();
  for (const file of ['libs/runtime/src/config.ts', 'apps/worker/src/main.ts']) {
    const text = read(file);
    for (const m of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]);
    // intFromEnv(env, 'PORT', ...), boolFromEnv(env, 'RUN_WORKERS', ...), env['X']
    for (const m of text.matchAll(/FromEnv\(\s*env\s*,\s*'([A-Z][A-Z0-9_]*)'/g)) names.add(m[1]);
    for (const m of text.matchAll(/\benv\[\s*'([A-Z][A-Z0-9_]*)'\s*\]/g)) names.add(m[1]);
  }
  return names;
}
const APP_VARIABLES = variablesTheAppReads();

// ---------------------------------------------------------------------------------------------------------------
// The files

const YAML_FILES = [
  'docker-compose.yml',
  ...readdirSync(path.join(ROOT, 'infra/k8s'))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => `infra/k8s/${f}`),
];
const K8S_FILES = YAML_FILES.filter((f) => f.startsWith('infra/k8s/') && !f.endsWith('kustomization.yaml'));

/** Compose keeps YAML merge keys (<<) of YAML 1.1; the yaml package resolves them with `merge: true`. */
const composeRaw = parse(read('docker-compose.yml'), { merge: true }) as ComposeFile;
const dotEnv = parseDotEnv(read('.env.example'));
const interpolation: Interpolation = { referenced: new Map() };
const compose = interpolate(composeRaw, dotEnv, interpolation);

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string | number | boolean | null>;
  ports?: (string | number)[];
  expose?: unknown[];
  container_name?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string; disable?: boolean };
  volumes?: (string | { type: string; source?: string })[];
  network_mode?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const k8sObjects: (K8sObject & { file: string })[] = K8S_FILES.flatMap((file) =>
  parseAllDocuments(read(file)).map((doc) => ({ ...(doc.toJS() as K8sObject), file })),
);
/** Kinds of the Kubernetes API itself, which kubernetes-models validates; KEDA's CRD kinds are checked by keda.ts. */
const builtInObjects = k8sObjects.filter((o) => !o.apiVersion.startsWith('keda.sh/'));
const kustomization = parse(read('infra/k8s/kustomization.yaml')) as {
  apiVersion: string;
  kind: string;
  namespace: string;
  resources: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
};

interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number; hostPort?: number }[];
  env?: { name: string; value?: string }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface Probe {
  httpGet?: { path: string; port: number | string };
  exec?: { command: string[] };
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; emptyDir?: { sizeLimit?: string }; persistentVolumeClaim?: { claimName: string } }[];
  hostNetwork?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
}
interface Deployment extends K8sObject {
  spec: {
    replicas?: number;
    strategy?: { rollingUpdate?: { maxUnavailable?: number | string } };
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  };
}

const ofKind = <T extends K8sObject = K8sObject>(kind: string): T[] =>
  k8sObjects.filter((o) => o.kind === kind) as unknown as T[];
const deployments = ofKind<Deployment>('Deployment');
const byComponent = (component: string): Deployment => {
  const found = deployments.find((d) => d.metadata.labels?.['app.kubernetes.io/component'] === component);
  if (!found) throw new Error(`no Deployment with component ${component}`);
  return found;
};
const gatewayDeployment = byComponent('gateway');
const workerDeployments = deployments.filter((d) => d !== gatewayDeployment);
const configMap = ofKind('ConfigMap')[0] as K8sObject & { data: Record<string, string> };
const queuesOf = (d: Deployment): string[] =>
  (d.spec.template.spec.containers[0].env ?? []).find((e) => e.name === 'WORKER_QUEUES')!.value!.split(',');
/** Owners of shard sets (workers-shards.yaml): their queues are per-set candidate kinds of the two indexes only. */
const shardOwners = workerDeployments.filter((d) =>
  queuesOf(d).every((k) => k.startsWith(`${PUBLIC_CANDIDATES_KIND}_`) || k.startsWith(`${COLLECTION_CANDIDATES_KIND}_`)),
);
const secret = ofKind('Secret')[0] as K8sObject & { stringData?: Record<string, string>; data?: Record<string, string> };

/** Dockerfile instructions, with line continuations joined and comments dropped. */
function dockerfile(app: string): { instruction: string; args: string; stage: number }[] {
  const joined = read(`apps/${app}/Dockerfile`)
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  let stage = -1;
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const [instruction, ...rest] = line.split(/\s+/);
      if (instruction.toUpperCase() === 'FROM') stage++;
      return { instruction: instruction.toUpperCase(), args: rest.join(' '), stage };
    });
}

// ---------------------------------------------------------------------------------------------------------------

describe('the code the deployment files are checked against', () => {
  it('reads the variables this test expects from libs/runtime/src/config.ts and apps/worker/src/main.ts', () => {
    for (const name of ['PORT', 'DATABASE_URL', 'REDIS_URL', 'S3_ENDPOINT', 'ACCOUNTS', 'RUN_WORKERS', 'WORKER_QUEUES']) {
      expect(APP_VARIABLES, name).toContain(name);
    }
  });

  it('listens on 8080 unless PORT says otherwise', () => {
    expect(read('libs/runtime/src/config.ts')).toMatch(/intFromEnv\(env, 'PORT', 8080\)/);
  });
});

describe('YAML files', () => {
  it.each(YAML_FILES)('%s parses without errors or warnings (duplicate keys included)', (file) => {
    for (const doc of parseAllDocuments(read(file))) {
      expect(doc.errors.map((e) => e.message)).toEqual([]);
      expect(doc.warnings.map((e) => e.message)).toEqual([]);
      expect(doc.toJS()).toBeTruthy();
    }
  });
});

describe('docker-compose.yml', () => {
  const validate = composeValidator();

  it('validates against the Compose specification schema once interpolated with .env.example', () => {
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('is checked by a schema that does reject a misspelt key', () => {
    const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.worker.helthcheck = broken.services.worker.healthcheck;
    expect(validate(broken)).toBe(false);
  });

  it('uses only variables documented in .env.example, and .env.example documents nothing unused', () => {
    const referenced = [...interpolation.referenced.keys()].sort();
    expect(referenced).toEqual([...dotEnv.keys()].sort());
  });

  it('has a value in .env.example for every variable it requires', () => {
    for (const [name, { required }] of interpolation.referenced) {
      if (required) expect(dotEnv.get(name), name).toBeTruthy();
    }
  });

  it('runs redis, postgres, minio, the gateway and the worker', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['gateway', 'minio', 'postgres', 'redis', 'worker']);
  });

  it('gives every service a health check', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.healthcheck?.test, name).toBeTruthy();
      expect(service.healthcheck?.disable, name).not.toBe(true);
    }
  });

  it('starts the gateway and the worker only once the servers they use are healthy', () => {
    for (const app of APPS) {
      expect(compose.services[app].depends_on).toEqual({
        postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' },
        minio: { condition: 'service_healthy' },
      });
    }
  });

  it('keeps data in named volumes that are declared', () => {
    const declared = Object.keys(compose.volumes ?? {});
    for (const name of ['redis', 'postgres', 'minio']) {
      const mounts = compose.services[name].volumes ?? [];
      expect(mounts.length, name).toBeGreaterThan(0);
      for (const mount of mounts) {
        const source = typeof mount === 'string' ? mount.split(':')[0] : mount.source;
        expect(declared, `${name}: ${String(source)}`).toContain(source);
      }
    }
  });

  it('lets the worker scale: no container_name, no published or fixed port', () => {
    const worker = compose.services.worker;
    expect(worker.container_name).toBeUndefined();
    expect(worker.ports).toBeUndefined();
    expect(worker.network_mode).toBeUndefined();
    for (const [name, service] of Object.entries(compose.services)) expect(service.container_name, name).toBeUndefined();
  });

  it('publishes the gateway on its PORT, and PORT is the one the image and config use', () => {
    const gateway = compose.services.gateway;
    expect(gateway.environment?.PORT).toBe(String(PORT));
    expect(gateway.ports).toHaveLength(1);
    const containerPort = String(gateway.ports?.[0]).split(':').pop();
    expect(containerPort).toBe(String(PORT));
  });

  it('sets only variables the gateway and workers read', () => {
    for (const app of APPS) {
      for (const name of Object.keys(compose.services[app].environment ?? {})) {
        expect(APP_VARIABLES, `${app}: ${name}`).toContain(name);
      }
    }
  });

  it('connects the apps to the compose services, with workers out of the gateway process', () => {
    for (const app of APPS) {
      const env = compose.services[app].environment ?? {};
      expect(env.REDIS_URL).toBe('redis://redis:6379');
      expect(env.S3_ENDPOINT).toBe('http://minio:9000');
      expect(String(env.DATABASE_URL)).toMatch(/^postgres:\/\/[^:]+:[^@]+@postgres:5432\/\w+$/);
    }
    expect(compose.services.gateway.environment?.RUN_WORKERS).toBe('false');
  });

  it('has a valid override example for split worker pools in infra/README.md', () => {
    const block = /```yaml\n(services:[\s\S]*?)```/.exec(read('infra/README.md'))?.[1];
    expect(block).toBeTruthy();
    const override = parse(block!) as ComposeFile;
    expect(validate(override), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(override.services)).toEqual(['worker', 'worker-search']);
  });

  it('builds each app from its Dockerfile and checks it with the same script as the image', () => {
    for (const app of APPS) {
      const service = compose.services[app];
      expect(service.build).toEqual({ context: '.', dockerfile: `apps/${app}/Dockerfile` });
      expect(existsSync(path.join(ROOT, service.build!.dockerfile))).toBe(true);
    }
    expect(compose.services.gateway.healthcheck?.test).toEqual(['CMD', 'node', HEALTHCHECK_SCRIPT, 'http', LIVE_PATH]);
    expect(compose.services.worker.healthcheck?.test).toEqual(['CMD', 'node', HEALTHCHECK_SCRIPT, 'redis']);
  });
});

describe.each(APPS)('apps/%s/Dockerfile', (app) => {
  const steps = dockerfile(app);
  const finalStage = Math.max(...steps.map((s) => s.stage));
  const final = steps.filter((s) => s.stage === finalStage);

  it('is multi-stage, every stage on the current Node LTS (node:24-bookworm-slim)', () => {
    const arg = steps.find((s) => s.instruction === 'ARG' && s.args.startsWith('NODE_IMAGE='));
    expect(arg?.args).toBe('NODE_IMAGE=node:24-bookworm-slim');
    const froms = steps.filter((s) => s.instruction === 'FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from.args).toMatch(/^\$\{NODE_IMAGE\} AS \w+$/);
  });

  const stageNamed = (name: string) => steps.find((s) => s.instruction === 'FROM' && s.args.endsWith(` AS ${name}`))?.stage;
  const runsOf = (stage: number | undefined) => steps.filter((s) => s.stage === stage && s.instruction === 'RUN').map((s) => s.args).join('\n');

  it('compiles in a build stage and ships production dependencies only, from the lockfile', () => {
    // The build stage installs everything (TypeScript is a dev dependency) and runs the README's build command.
    const build = stageNamed('build');
    expect(build).toBeDefined();
    expect(runsOf(build)).toMatch(/npm install --include=dev/);
    expect(runsOf(build)).toMatch(/npm run build/);
    // The runtime's node_modules come from a stage that installed production dependencies only.
    const deps = stageNamed('deps');
    expect(runsOf(deps)).toMatch(/npm install --omit=dev/);
    expect(runsOf(deps)).not.toMatch(/npm (ci|install)(?! --omit=dev)/);
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.dependencies.tsx, 'the images run compiled JavaScript: tsx is a dev dependency').toBeUndefined();
    expect(manifest.dependencies.typescript).toBeUndefined();
    const copies = final.filter((s) => s.instruction === 'COPY').map((s) => s.args);
    expect(copies).toContain('--from=deps /app/node_modules ./node_modules');
    for (const dir of ['dist/node_modules', 'dist/libs', `dist/apps/${app}`]) expect(copies).toContain(`--from=build /app/${dir} ./${dir}`);
    // The final stage installs and compiles nothing, and carries no TypeScript sources.
    expect(final.filter((s) => s.instruction === 'RUN').map((s) => s.args).join('\n')).not.toMatch(/npm|tsc/);
    for (const copy of copies) expect(copy).not.toMatch(/(^| )(\.\/)?(libs|apps)(\/|$| )/);
  });

  it('runs as the non-root node user (uid 1000, as the Kubernetes manifests expect) with a HEALTHCHECK', () => {
    expect(final.filter((s) => s.instruction === 'USER').map((s) => s.args)).toEqual(['node']);
    const healthcheck = final.find((s) => s.instruction === 'HEALTHCHECK');
    expect(healthcheck?.args).toContain(`CMD ["node", "${HEALTHCHECK_SCRIPT}", ${app === 'gateway' ? `"http", "${LIVE_PATH}"` : '"redis"'}]`);
  });

  it('starts the compiled app, as npm start / npm run start:worker do', () => {
    const cmd = final.find((s) => s.instruction === 'CMD')?.args;
    const entry = `dist/apps/${app}/src/main.js`;
    expect(cmd).toBe(`["node", "${entry}"]`);
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.scripts[app === 'gateway' ? 'start' : 'start:worker']).toBe(`node ${entry}`);
  });

  it('sets only variables the app reads, and exposes PORT only for the gateway', () => {
    for (const env of final.filter((s) => s.instruction === 'ENV')) {
      for (const m of env.args.matchAll(/([A-Z][A-Z0-9_]*)=/g)) expect(APP_VARIABLES, m[1]).toContain(m[1]);
    }
    const expose = final.filter((s) => s.instruction === 'EXPOSE').map((s) => s.args);
    if (app === 'gateway') {
      expect(expose).toEqual([String(PORT)]);
      expect(final.find((s) => s.instruction === 'ENV')?.args).toContain(`PORT=${PORT}`);
    } else {
      expect(expose).toEqual([]);
    }
  });

  it('copies only paths that exist and that .dockerignore keeps in the build context', () => {
    const dockerignore = read('.dockerignore');
    for (const copy of steps.filter((s) => s.instruction === 'COPY' && !s.args.startsWith('--from'))) {
      const sources = copy.args.split(/\s+/).slice(0, -1);
      for (const source of sources) {
        if (source === '.') continue;
        expect(existsSync(path.join(ROOT, source)), source).toBe(true);
        expect(dockerignoreKeeps(dockerignore, source), source).toBe(true);
      }
    }
  });
});

describe('.dockerignore', () => {
  const dockerignore = read('.dockerignore');

  it('keeps what the images need at run time', () => {
    for (const file of [
      'package.json',
      'package-lock.json',
      'tsconfig.base.json',
      'tsconfig.build.json',
      'tsconfig.build.base.json',
      'apps/gateway/tsconfig.build.json',
      'libs/fingerprint/tsconfig.build.json',
      'tools/build/assets.mjs',
      'apps/gateway/src/main.ts',
      'apps/gateway/src/console/static/index.html',
      'libs/fingerprint/src/pool/worker-boot.cjs',
      'libs/ocr/data/countries.json',
      'apps/worker/src/main.ts',
      'libs/runtime/src/config.ts',
      'libs/fingerprint/data/vocabulary.bin',
      HEALTHCHECK_SCRIPT,
      ...['auth', 'jobs', 'storage'].map((lib) => `libs/${lib}/package.json`),
    ]) {
      expect(dockerignoreKeeps(dockerignore, file), file).toBe(true);
    }
  });

  it('leaves out installed modules, local data and secrets, and VCS', () => {
    for (const file of [
      'node_modules/sharp/package.json',
      'libs/storage/node_modules/x/index.js',
      'data/pg/PG_VERSION',
      '.env',
      '.git/HEAD',
      'infra/k8s/secret.yaml',
      'libs/runtime/src/config.test.ts',
      // A local build: the image compiles its own dist/ from the sources.
      'dist/apps/gateway/src/main.js',
      'libs/fingerprint/dist/index.js',
      'tools/bench/match/run.ts',
    ]) {
      expect(dockerignoreKeeps(dockerignore, file), file).toBe(false);
    }
  });
});

describe('infra/k8s', () => {
  it('lists every manifest in kustomization.yaml, and nothing else', () => {
    expect(kustomization.apiVersion).toBe('kustomize.config.k8s.io/v1beta1');
    expect(kustomization.kind).toBe('Kustomization');
    expect([...kustomization.resources].sort()).toEqual(K8S_FILES.map((f) => path.basename(f)).sort());
  });

  it('has the namespace, ConfigMap, Secret, Deployments, Service, ScaledObjects and PodDisruptionBudgets', () => {
    const kinds = new Set(k8sObjects.map((o) => o.kind));
    for (const kind of ['Namespace', 'ConfigMap', 'Secret', 'Deployment', 'Service', 'ScaledObject', 'PodDisruptionBudget']) {
      expect(kinds, kind).toContain(kind);
    }
  });

  it('puts everything in the kustomization namespace', () => {
    const namespace = ofKind('Namespace')[0];
    expect(namespace.metadata.name).toBe(kustomization.namespace);
    for (const obj of k8sObjects.filter((o) => o.kind !== 'Namespace')) {
      expect(obj.metadata.namespace, `${obj.kind}/${obj.metadata.name}`).toBe(kustomization.namespace);
    }
  });

  it.each(builtInObjects.map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))(
    '%s validates against the Kubernetes API schema',
    (_label, obj) => {
      const { file: _file, ...manifest } = obj;
      expect(schemaErrors(manifest as K8sObject)).toEqual([]);
    },
  );

  it('uses only fields the Kubernetes API knows, with the right types (no misspelt keys)', () => {
    const manifests = builtInObjects.map(({ file: _file, ...manifest }) => manifest as K8sObject);
    expect(typeErrors(manifests)).toEqual([]);
  });

  it('is checked by validators that do reject a wrong type and a misspelt field', () => {
    const broken = structuredClone(gatewayDeployment) as Deployment & { file?: string };
    delete broken.file;
    (broken.spec.template.spec.containers[0].ports![0] as { containerPort: unknown }).containerPort = 'http';
    expect(schemaErrors(broken)).not.toEqual([]);
    const misspelt = structuredClone(gatewayDeployment) as Deployment & { file?: string };
    delete misspelt.file;
    const container = misspelt.spec.template.spec.containers[0] as Container & { readinesProbe?: Probe };
    container.readinesProbe = container.readinessProbe;
    expect(typeErrors([misspelt]).join('\n')).toMatch(/readinesProbe/);
  });

  it('keeps the ConfigMap free of credentials and the Secret as placeholders', () => {
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'ACCOUNTS']) {
      expect(Object.keys(configMap.data), name).not.toContain(name);
      expect(secret.stringData?.[name], name).toMatch(/CHANGE-ME/);
    }
    for (const value of Object.values(configMap.data)) expect(typeof value).toBe('string');
  });

  it('sets only variables the gateway and workers read', () => {
    const names = [
      ...Object.keys(configMap.data),
      ...Object.keys(secret.stringData ?? {}),
      ...Object.keys(secret.data ?? {}),
      ...deployments.flatMap((d) => d.spec.template.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name))),
    ];
    for (const name of names) expect(APP_VARIABLES, name).toContain(name);
  });

  it('loads settings from the ConfigMap and Secret that exist', () => {
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers) {
        const from = c.envFrom ?? [];
        expect(from.map((f) => f.configMapRef?.name).filter(Boolean), d.metadata.name).toEqual([configMap.metadata.name]);
        expect(from.map((f) => f.secretRef?.name).filter(Boolean), d.metadata.name).toEqual([secret.metadata.name]);
      }
    }
  });

  it('serves the gateway on PORT, behind a Service, with the documented probe paths', () => {
    expect(configMap.data.PORT).toBe(String(PORT));
    const [container] = gatewayDeployment.spec.template.spec.containers;
    // Metrics have their own port (METRICS_PORT), which the Service must not publish.
    expect(container.ports).toEqual([
      { name: 'http', containerPort: PORT, protocol: 'TCP' },
      { name: 'metrics', containerPort: Number(configMap.data.METRICS_PORT), protocol: 'TCP' },
    ]);
    expect(container.livenessProbe?.httpGet).toEqual({ path: LIVE_PATH, port: 'http' });
    expect(container.readinessProbe?.httpGet).toEqual({ path: READY_PATH, port: 'http' });
    expect(container.startupProbe?.httpGet).toEqual({ path: LIVE_PATH, port: 'http' });
    const [service] = ofKind<K8sObject & { spec: { selector: Record<string, string>; ports: { targetPort: string | number }[] } }>('Service');
    expect(service.spec.selector).toEqual(gatewayDeployment.spec.template.metadata.labels);
    for (const port of service.spec.ports) expect([PORT, 'http']).toContain(port.targetPort);
  });

  it('gives no worker and no pod a port on the host', () => {
    for (const d of deployments) {
      expect(d.spec.template.spec.hostNetwork, d.metadata.name).not.toBe(true);
      for (const c of d.spec.template.spec.containers) {
        for (const port of c.ports ?? []) expect(port.hostPort, d.metadata.name).toBeUndefined();
      }
    }
    for (const d of workerDeployments) {
      for (const c of d.spec.template.spec.containers) expect(c.ports, d.metadata.name).toBeUndefined();
    }
  });

  it('checks worker readiness with the image health-check script (workers have no HTTP endpoint)', () => {
    for (const d of workerDeployments.filter((w) => !shardOwners.includes(w))) {
      const [container] = d.spec.template.spec.containers;
      expect(container.readinessProbe?.exec?.command).toEqual(['node', HEALTHCHECK_SCRIPT, 'redis']);
    }
  });

  it('checks shard owners on the worker\'s /health/live, which apps/worker serves only after loading its shards', () => {
    const main = read('apps/worker/src/main.ts');
    // The metrics/health server starts after the warm-up loop (and before the BullMQ workers), on METRICS_PORT.
    expect(main.indexOf('loaded in')).toBeGreaterThan(0);
    expect(main.indexOf('loaded in')).toBeLessThan(main.indexOf('serveMetrics(metrics, config.metricsPort)'));
    expect(read('libs/runtime/src/config.ts')).toMatch(/metricsPort: intFromEnv\(env, 'METRICS_PORT', 9464\)/);
    for (const d of shardOwners) {
      const [container] = d.spec.template.spec.containers;
      expect(container.readinessProbe?.httpGet, d.metadata.name).toEqual({ path: LIVE_PATH, port: Number(configMap.data.METRICS_PORT ?? 9464) });
    }
  });

  it('gives every shard set of PUBLIC_SHARD_SETS and COLLECTION_SHARD_SETS exactly one owner Deployment, with two replicas and a PDB', () => {
    const sets = parseShardSets(configMap.data.PUBLIC_SHARD_SETS)!;
    const collectionSets = parseCollectionShardSets(configMap.data.COLLECTION_SHARD_SETS)!;
    expect(sets.length).toBeGreaterThanOrEqual(2);
    expect(collectionSets.length).toBeGreaterThanOrEqual(2);
    const owned = shardOwners.map(queuesOf);
    expect(owned.flat().sort()).toEqual([...sets.map(candidateKind), ...collectionSets.map(collectionCandidateKind)].sort());
    // At most one set of each index per owner: one owner holding two sets of one index would be a set of its own.
    for (const queues of owned) {
      expect(queues.filter((k) => k.startsWith(`${PUBLIC_CANDIDATES_KIND}_`)).length).toBeLessThanOrEqual(1);
      expect(queues.filter((k) => k.startsWith(`${COLLECTION_CANDIDATES_KIND}_`)).length).toBeLessThanOrEqual(1);
    }
    const pdbs = ofKind<K8sObject & { spec: { selector: { matchLabels: Record<string, string> } } }>('PodDisruptionBudget');
    for (const d of shardOwners) {
      expect(d.spec.replicas, d.metadata.name).toBeGreaterThanOrEqual(2);
      expect(d.spec.strategy?.rollingUpdate?.maxUnavailable, d.metadata.name).toBe(0);
      expect(pdbs.some((p) => p.spec.selector.matchLabels['app.kubernetes.io/component'] === d.metadata.labels?.['app.kubernetes.io/component'])).toBe(true);
    }
  });

  it('gives every job kind exactly one worker group: writes to worker-write, reads to worker-search', () => {
    const queues = queuesOf;
    const write = queues(byComponent('worker-write'));
    const search = queues(byComponent('worker-search'));
    expect(write).toEqual(expect.arrayContaining(['ingest', 'delete', 'fingerprint']));
    expect(search).toEqual(expect.arrayContaining(['search', 'compare']));
    // The groups follow the queue policy's classes, so a new job kind fails here until it is given a group; the
    // preparation of an add's images (not a write: it changes no collection) is the write workers' CPU work.
    const writeWork = (k: string) => JOB_POLICY.classOf(k) === 'write' || k === 'ingest_prepare';
    expect([...write].sort()).toEqual(ALL_JOB_KINDS.filter(writeWork).sort());
    expect([...search].sort()).toEqual(ALL_JOB_KINDS.filter((k) => !writeWork(k)).sort());
    const all = workerDeployments.flatMap(queues);
    expect(new Set(all).size).toBe(all.length);
    // apps/worker/src/main.ts refuses to start with a kind it has no processor for.
    const deps = {
      images: {},
      blobs: {},
      matchIndex: {},
      db: {},
      publicShards: { sets: configMap.data.PUBLIC_SHARD_SETS },
      collectionShards: { sets: configMap.data.COLLECTION_SHARD_SETS },
    } as unknown as ProcessorDeps;
    expect(Object.keys(createProcessors(deps))).toEqual(expect.arrayContaining(all));
    for (const d of workerDeployments) {
      const concurrency = d.spec.template.spec.containers[0].env?.find((e) => e.name === 'WORKER_CONCURRENCY')?.value;
      expect(Number(concurrency), d.metadata.name).toBeGreaterThanOrEqual(1);
    }
  });

  it('gives every container CPU and memory requests and limits, requests within limits', () => {
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers) {
        for (const resource of ['cpu', 'memory']) {
          const request = c.resources?.requests?.[resource];
          const limit = c.resources?.limits?.[resource];
          expect(request, `${d.metadata.name} ${resource} request`).toBeDefined();
          expect(limit, `${d.metadata.name} ${resource} limit`).toBeDefined();
          expect(quantity(request!)).toBeLessThanOrEqual(quantity(limit!));
        }
      }
    }
    // OpenCV-WASM needs about 300 MB per worker process, plus sharp's decode buffers.
    for (const d of workerDeployments) {
      expect(quantity(d.spec.template.spec.containers[0].resources!.limits!.memory)).toBeGreaterThanOrEqual(1024 * 2 ** 20);
    }
  });

  it('selects each Deployment\'s own pods, and points the Service and PDBs at existing Deployments', () => {
    const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    for (const d of deployments) {
      expect(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels), d.metadata.name).toBe(true);
      const others = deployments.filter((o) => o !== d && matches(d.spec.selector.matchLabels, o.spec.template.metadata.labels));
      expect(others, d.metadata.name).toEqual([]);
    }
    for (const pdb of ofKind<K8sObject & { spec: { selector: { matchLabels: Record<string, string> } } }>('PodDisruptionBudget')) {
      const targets = deployments.filter((d) => matches(pdb.spec.selector.matchLabels, d.spec.template.metadata.labels));
      expect(targets.length, pdb.metadata.name).toBe(1);
    }
  });

  it('runs every pod as the image\'s non-root user under the restricted pod security profile', () => {
    expect(ofKind('Namespace')[0].metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const d of deployments) {
      const pod = d.spec.template.spec;
      expect(pod.securityContext, d.metadata.name).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      for (const c of pod.containers) {
        expect(c.securityContext, d.metadata.name).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
      }
    }
  });

  it('gives every INDEX_SNAPSHOT_DIR a writable volume (the root filesystem is read-only), on every shard owner at least', () => {
    const withSnapshots = deployments.filter((d) => d.spec.template.spec.containers.some((c) => c.env?.some((e) => e.name === 'INDEX_SNAPSHOT_DIR')));
    expect(shardOwners.length).toBeGreaterThan(0);
    for (const owner of shardOwners) expect(withSnapshots).toContain(owner);
    for (const d of withSnapshots) {
      const pod = d.spec.template.spec;
      for (const c of pod.containers) {
        const dir = c.env?.find((e) => e.name === 'INDEX_SNAPSHOT_DIR')?.value;
        if (dir === undefined) continue;
        const mount = c.volumeMounts?.find((m) => dir === m.mountPath || dir.startsWith(`${m.mountPath}/`));
        expect(mount, `${d.metadata.name}: no volume mounted at ${dir}`).toBeDefined();
        expect(mount!.readOnly, d.metadata.name).not.toBe(true);
        expect(pod.volumes?.map((v) => v.name), d.metadata.name).toContain(mount!.name);
      }
    }
  });

  it('uses the two images the kustomization names', () => {
    const images = new Set(deployments.flatMap((d) => d.spec.template.spec.containers.map((c) => c.image)));
    expect([...images].sort()).toEqual((kustomization.images ?? []).map((i) => i.name).sort());
    expect(gatewayDeployment.spec.template.spec.containers[0].image).toBe('loupe-gateway');
    for (const d of workerDeployments) expect(d.spec.template.spec.containers[0].image).toBe('loupe-worker');
  });
});

// ---------------------------------------------------------------------------------------------------------------

const scaledObjects = ofKind<ScaledObject & { file?: string }>('ScaledObject');
const withoutFile = (so: ScaledObject & { file?: string }): ScaledObject => {
  const { file: _file, ...manifest } = so;
  return manifest as ScaledObject;
};
const targetOf = (so: ScaledObject): Deployment | undefined => deployments.find((d) => d.metadata.name === so.spec.scaleTargetRef.name);
const concurrencyOf = (d: Deployment): number =>
  Number(d.spec.template.spec.containers[0].env?.find((e) => e.name === 'WORKER_CONCURRENCY')?.value);

describe('infra/k8s autoscaling', () => {
  it.each(scaledObjects.map((so) => [so.metadata.name, so] as const))(
    'ScaledObject %s has only fields of KEDA\'s CRD, of the right types, and its HPA validates against Kubernetes',
    (_name, so) => {
      expect(scaledObjectErrors(withoutFile(so))).toEqual([]);
    },
  );

  it('is checked by a validator that rejects a misspelt field, a number where the CRD wants a string, a threshold that is not a number, and a bad HPA behavior', () => {
    const broken = () => structuredClone(withoutFile(scaledObjects[0])) as ScaledObject & { spec: Record<string, unknown> };
    const misspelt = broken();
    misspelt.spec.maxReplicaCout = 3;
    expect(scaledObjectErrors(misspelt).join('\n')).toMatch(/maxReplicaCout: unknown field/);
    const numeric = broken();
    (numeric.spec.triggers[0].metadata as Record<string, unknown>).threshold = 3;
    expect(scaledObjectErrors(numeric).join('\n')).toMatch(/threshold: expected a string/);
    const words = broken();
    words.spec.triggers[0].metadata.threshold = 'three';
    expect(scaledObjectErrors(words).join('\n')).toMatch(/threshold: "three" is not a number/);
    const behavior = broken();
    const scaleDown = behavior.spec.advanced!.horizontalPodAutoscalerConfig!.behavior!.scaleDown as Record<string, unknown>;
    scaleDown.stabilisationWindowSeconds = scaleDown.stabilizationWindowSeconds;
    expect(scaledObjectErrors(behavior).join('\n')).toMatch(/stabilisationWindowSeconds/);
    const inverted = broken();
    inverted.spec.minReplicaCount = 20;
    expect(scaledObjectErrors(inverted).join('\n')).toMatch(/minReplicaCount 20 > maxReplicaCount/);
  });

  it('scales the search and the write workers, each Deployment by one autoscaler at most, and targets only Deployments that exist', () => {
    const targets = autoscalersByDeployment(k8sObjects);
    for (const [name, by] of targets) {
      expect(deployments.map((d) => d.metadata.name), `${by.join(', ')} target ${name}`).toContain(name);
      expect(by, `${name} is scaled by ${by.join(' and ')}, which would overwrite each other's replica count`).toHaveLength(1);
    }
    expect(scaledObjects.map((so) => targetOf(so)?.metadata.labels?.['app.kubernetes.io/component']).sort()).toEqual(['worker-search', 'worker-write']);
    for (const so of scaledObjects) {
      expect(so.spec.scaleTargetRef, so.metadata.name).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: targetOf(so)!.metadata.name });
      expect(so.metadata.namespace).toBe(targetOf(so)!.metadata.namespace);
    }
  });

  it('would catch a second autoscaler on a Deployment: the CPU HPA the search workers had, put back', () => {
    const cpuHpa: K8sObject = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'loupe-worker-search', namespace: 'loupe' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'loupe-worker-search' },
        minReplicas: 2,
        maxReplicas: 10,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
      },
    };
    expect(autoscalersByDeployment([...k8sObjects, cpuHpa]).get('loupe-worker-search')).toEqual([
      'ScaledObject/loupe-worker-search',
      'HorizontalPodAutoscaler/loupe-worker-search',
    ]);
  });

  it('leaves an autoscaled Deployment\'s replica count to its autoscaler, and drains it one pod at a time', () => {
    const pdbs = ofKind<K8sObject & { spec: { maxUnavailable?: number; selector: { matchLabels: Record<string, string> } } }>('PodDisruptionBudget');
    for (const name of autoscalersByDeployment(k8sObjects).keys()) {
      const d = deployments.find((o) => o.metadata.name === name)!;
      // A fixed count would be put back by every `kubectl apply`, then changed again by the HPA.
      expect(d.spec.replicas, name).toBeUndefined();
      const pdb = pdbs.find((p) => Object.entries(p.spec.selector.matchLabels).every(([k, v]) => d.spec.template.metadata.labels[k] === v));
      expect(pdb?.spec.maxUnavailable, name).toBe(1);
    }
  });

  it('sizes each pool with numbers: at least 2 replicas, a maximum above it, and a per-replica threshold between WORKER_CONCURRENCY and twice it', () => {
    for (const so of scaledObjects) {
      const name = so.metadata.name;
      const { minReplicaCount, maxReplicaCount, triggers } = so.spec;
      expect(Number.isInteger(minReplicaCount) && Number.isInteger(maxReplicaCount), name).toBe(true);
      // One replica restarting must leave another to take jobs before QUEUE_PICKUP_TIMEOUT_MS fails them.
      expect(minReplicaCount, name).toBeGreaterThanOrEqual(2);
      expect(maxReplicaCount!, name).toBeGreaterThan(minReplicaCount!);
      expect(triggers, name).toHaveLength(1);
      const [trigger] = triggers;
      expect(trigger.type).toBe('prometheus');
      // The threshold is per replica only for AverageValue (the HPA divides the query's value by it).
      expect(trigger.metricType, name).toBe('AverageValue');
      const threshold = Number(trigger.metadata.threshold);
      expect(trigger.metadata.threshold, name).toMatch(/^\d+(\.\d+)?$/);
      // Below WORKER_CONCURRENCY replicas would sit partly idle; above twice it jobs would queue behind more than one
      // job per slot before a replica is added.
      const concurrency = concurrencyOf(targetOf(so)!);
      expect(threshold, name).toBeGreaterThanOrEqual(concurrency);
      expect(threshold, name).toBeLessThanOrEqual(2 * concurrency);
      // An empty answer is a lost scrape; read as 0 it would shrink the pool under load.
      expect(trigger.metadata.ignoreNullValues, name).toBe('false');
      expect(() => new URL(trigger.metadata.serverAddress), name).not.toThrow();
      expect(new URL(trigger.metadata.serverAddress).protocol, name).toMatch(/^https?:$/);
    }
  });

  it('queries the gauge the gateway exports: each pool counts its own kinds\' waiting and running jobs, once across gateway replicas', async () => {
    // Every line a gateway's JobQueue.stats() can report, each with its own power of two so that any line counted
    // twice, left out or let in changes the sum: job kinds (`kind:<kind>`, the shard owners' included) and admission
    // queues (`<group>/<class>`).
    const lines = [
      ...ALL_JOB_KINDS.map((k) => `kind:${k}`),
      ...parseShardSets(configMap.data.PUBLIC_SHARD_SETS)!.map((set) => `kind:${candidateKind(set)}`),
      ...parseCollectionShardSets(configMap.data.COLLECTION_SHARD_SETS)!.map((set) => `kind:${collectionCandidateKind(set)}`),
      'acme:match/read',
      'acme:match/write',
    ];
    const counts = Object.fromEntries(lines.map((line, i) => [line, { waiting: 2 ** (2 * i), active: 2 ** (2 * i + 1) }]));
    const exposition = await new Metrics({ queueCounts: async () => counts }).registry.metrics();
    const otherInstall = await new Metrics({ queueCounts: async () => Object.fromEntries(lines.map((l) => [l, { waiting: 3, active: 5 }])) }).registry.metrics();
    const namespace = kustomization.namespace;
    const samples: Sample[] = [
      // Two gateway replicas report the same Redis-wide counts; another namespace's Loupe reports its own.
      ...scrape(exposition, { namespace, pod: 'loupe-gateway-a' }),
      ...scrape(exposition, { namespace, pod: 'loupe-gateway-b' }),
      ...scrape(otherInstall, { namespace: 'loupe-staging', pod: 'loupe-gateway-a' }),
    ];
    expect(samples.some((s) => s.labels.__name__ === 'loupe_queue_jobs')).toBe(true);
    for (const so of scaledObjects) {
      const query = so.spec.triggers[0].metadata.query;
      const expected = queuesOf(targetOf(so)!).reduce((sum, kind) => sum + counts[`kind:${kind}`].waiting + counts[`kind:${kind}`].active, 0);
      expect(evaluate(query, samples), so.metadata.name).toEqual([{ labels: {}, value: expected }]);
      // No gateway scraped: no series at all, which ignoreNullValues "false" makes an error instead of a 0.
      expect(evaluate(query, samples.filter((s) => s.labels.__name__ !== 'loupe_queue_jobs')), so.metadata.name).toEqual([]);
    }
  });

  it('reads the gauge where the code makes it: the gateway\'s Metrics, over its BullMQ queue with a lane for every job kind', () => {
    // The gateway (not the workers) builds Metrics with the queue's counts; without a lane a kind would have no line.
    expect(read('apps/gateway/src/bootstrap.ts')).toMatch(/new Metrics\(\{\s*queueCounts: \(\) => queues!?\.queue\.stats\(\)/);
    expect(read('libs/runtime/src/queues.ts')).toMatch(/createBullQueue\(\{[^}]*kinds: \[\.\.\.ALL_JOB_KINDS/);
  });

  // REQUIRE_REAL_SERVERS (CI) makes a missing Redis a failure instead of a skip.
  describe.skipIf(!TEST_REDIS_URL && process.env.REQUIRE_REAL_SERVERS !== '1')('with Redis (TEST_REDIS_URL)', () => {
    it('counts what a gateway\'s BullMQ queue really holds: jobs no worker took yet and jobs running, in the pool that takes them', async () => {
      if (!TEST_REDIS_URL) throw new Error('REQUIRE_REAL_SERVERS=1 but TEST_REDIS_URL is not set.');
      const prefix = randomPrefix();
      const queue = createBullQueue({ policy: JOB_POLICY, redisUrl: TEST_REDIS_URL, prefix, kinds: [...ALL_JOB_KINDS], pickupTimeoutMs: 0 });
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      // One ingest worker taking one job at a time, held until the end: 1 ingest running, the other waiting.
      const workers = await startBullWorkers({ redisUrl: TEST_REDIS_URL, prefix, processors: { ingest: () => gate }, kinds: ['ingest'], concurrency: 1 });
      try {
        // Each call from its own account, so that admission lets them all into BullMQ at once.
        const calls = [
          ...['a', 'b', 'c'].map((account) => queue.run({ kind: 'search', group: `${account}:match`, payload: {} })),
          queue.run({ kind: 'color_search', group: 'a:color', payload: {} }),
          ...['a', 'b'].map((account) => queue.run({ kind: 'ingest', group: `${account}:match`, payload: {} })),
          queue.run({ kind: 'delete', group: 'c:match', payload: {} }),
        ];
        for (const call of calls) call.catch(() => undefined);
        await waitUntil(async () => {
          const counts = await queue.stats();
          return counts['kind:search']?.waiting === 3 && counts['kind:color_search']?.waiting === 1 && counts['kind:delete']?.waiting === 1
            && counts['kind:ingest']?.active === 1 && counts['kind:ingest']?.waiting === 1;
        }, 15_000);
        const exposition = await new Metrics({ queueCounts: () => queue.stats() }).registry.metrics();
        const samples = scrape(exposition, { namespace: kustomization.namespace, pod: 'loupe-gateway-a' });
        const value = (component: string) => {
          const so = scaledObjects.find((o) => targetOf(o)?.metadata.labels?.['app.kubernetes.io/component'] === component)!;
          return evaluate(so.spec.triggers[0].metadata.query, samples).map((s) => s.value);
        };
        expect(value('worker-search')).toEqual([4]);
        expect(value('worker-write')).toEqual([3]);
      } finally {
        open();
        await workers.close();
        await queue.close();
        await deleteKeys(TEST_REDIS_URL, prefix);
      }
    }, 30_000);
  });

  it('has Prometheus scrape the gateway\'s METRICS_PORT, where the gauge is served', () => {
    expect(gatewayDeployment.spec.template.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': configMap.data.METRICS_PORT,
      'prometheus.io/path': '/metrics',
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('infra/docker/healthcheck.cjs', () => {
  const script = path.join(ROOT, HEALTHCHECK_SCRIPT);

  /** Runs the script asynchronously (the fake servers live in this process) and resolves to its exit code. */
  function runCheck(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [script, ...args], {
        env: { PATH: process.env.PATH ?? '', HEALTHCHECK_TIMEOUT_MS: '2000', ...env },
      });
      let output = '';
      child.stdout.on('data', (c) => (output += c));
      child.stderr.on('data', (c) => (output += c));
      child.on('close', (code) => resolve({ code, output }));
    });
  }

  async function withServer<T>(server: http.Server | net.Server, fn: (port: number) => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await fn((server.address() as net.AddressInfo).port);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('is healthy when the gateway answers 2xx on /health/live, unhealthy on 404 or no answer', async () => {
    const seen: string[] = [];
    let status = 200;
    const server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(status).end('{}');
    });
    await withServer(server, async (port) => {
      expect((await runCheck(['http'], { PORT: String(port) })).code).toBe(0);
      status = 404;
      expect((await runCheck(['http', LIVE_PATH], { PORT: String(port) })).code).toBe(1);
    });
    expect(seen).toEqual([LIVE_PATH, LIVE_PATH]);
    const closed = await withServer(net.createServer(), async (port) => port);
    expect((await runCheck(['http'], { PORT: String(closed) })).code).toBe(1);
  });

  it('is healthy when Redis answers PING (with AUTH and SELECT from REDIS_URL), unhealthy on an error reply', async () => {
    const received: string[] = [];
    let reply = (command: string): string => (command.includes('PING') ? '+PONG\r\n' : '+OK\r\n');
    const server = net.createServer((socket) => {
      socket.on('data', (chunk) => {
        const text = chunk.toString();
        received.push(text);
        // One reply per RESP command in the chunk.
        const commands = text.split(/\*\d+\r\n/).filter(Boolean);
        socket.write(commands.map((c) => reply(c)).join(''));
      });
    });
    await withServer(server, async (port) => {
      const ok = await runCheck(['redis'], { REDIS_URL: `redis://:s3cret@127.0.0.1:${port}/2` });
      expect(ok.code, ok.output).toBe(0);
      expect(received.join('')).toContain('$4\r\nAUTH\r\n$6\r\ns3cret\r\n');
      expect(received.join('')).toContain('$6\r\nSELECT\r\n$1\r\n2\r\n');
      reply = (command) => (command.includes('AUTH') ? '-WRONGPASS invalid password\r\n' : '+PONG\r\n');
      expect((await runCheck(['redis'], { REDIS_URL: `redis://:bad@127.0.0.1:${port}` })).code).toBe(1);
    });
    expect((await runCheck(['redis'], {})).code).toBe(1);
  });

  it('refuses an unknown mode', () => {
    expect(spawnSync(process.execPath, [script, 'tcp']).status).toBe(1);
  });
});
