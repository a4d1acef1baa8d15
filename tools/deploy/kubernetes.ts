/**
 * Kubernetes helpers for the deployment-file tests. Objects are checked twice against the Kubernetes API as published
 * by the kubernetes-models package (generated from the Kubernetes OpenAPI definitions):
 *  - its JSON-schema validators (types, required fields, enums, formats), and
 *  - its TypeScript types, through the compiler's excess-property check, for unknown or misspelt fields: the
 *    OpenAPI schemas allow any extra property, while the API server (kubectl's default strict field validation)
 *    refuses them.
 */
import path from 'node:path';
import ts from 'typescript';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** The kubernetes-models module for an apiVersion: "v1" is the core group, "apps/v1" is kubernetes-models/apps/v1. */
function modelModule(apiVersion: string): string {
  return `kubernetes-models/${apiVersion}`;
}

interface ModelClass {
  new (data: unknown): { validate(): void };
}

/** Validates one object with kubernetes-models' schema validator; returns the error messages (empty when valid). */
export function schemaErrors(obj: K8sObject): string[] {
  let mod: Record<string, unknown>;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    mod = require(modelModule(obj.apiVersion)) as Record<string, unknown>;
  } catch {
    return [`unknown apiVersion ${obj.apiVersion}`];
  }
  const Model = mod[obj.kind] as ModelClass | undefined;
  if (typeof Model !== 'function') return [`unknown kind ${obj.kind} in ${obj.apiVersion}`];
  try {
    new Model(obj).validate();
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}

/**
 * Type-checks every object as an object literal typed with kubernetes-models' interface for its kind
 * (`kubernetes-models/apps/v1/Deployment` → `IDeployment`). Returns the compiler's messages, each prefixed with the
 * object it is about; empty when every field is known and of the right type.
 */
export function typeErrors(objects: K8sObject[]): string[] {
  const root = path.resolve(__dirname, '..', '..');
  const virtualFile = path.join(__dirname, '__k8s_objects__.ts').split(path.sep).join('/');
  const lines: string[] = [];
  const owners: { fromLine: number; label: string }[] = [];
  objects.forEach((obj, i) => {
    lines.push(`import type { I${obj.kind} as T${i} } from '${modelModule(obj.apiVersion)}/${obj.kind}';`);
  });
  objects.forEach((obj, i) => {
    const literal = `export const o${i}: T${i} = ${JSON.stringify(obj, null, 2)};`.split('\n');
    owners.push({ fromLine: lines.length, label: `${obj.kind}/${obj.metadata?.name}` });
    lines.push(...literal);
  });
  const source = lines.join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    types: [],
    baseUrl: root,
  };
  const host = ts.createCompilerHost(options, true);
  const original = { getSourceFile: host.getSourceFile, fileExists: host.fileExists, readFile: host.readFile };
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === virtualFile
      ? ts.createSourceFile(fileName, source, languageVersion, true)
      : original.getSourceFile.call(host, fileName, languageVersion, ...rest);
  host.fileExists = (fileName) => fileName === virtualFile || original.fileExists.call(host, fileName);
  host.readFile = (fileName) => (fileName === virtualFile ? source : original.readFile.call(host, fileName));
  const program = ts.createProgram([virtualFile], options, host);
  const file = program.getSourceFile(virtualFile);
  if (!file) throw new Error('the virtual source file was not created');
  const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  return diagnostics.map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (d.start === undefined) return message;
    const { line } = file.getLineAndCharacterOfPosition(d.start);
    const owner = [...owners].reverse().find((o) => o.fromLine <= line);
    return `${owner?.label ?? 'imports'}: ${message} (at: ${lines[line].trim()})`;
  });
}

/** Kubernetes quantity to a number: CPU in cores ("250m" = 0.25), memory in bytes ("1Gi" = 2^30). */
export function quantity(value: string | number): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+(?:\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(value);
  if (!match) throw new Error(`not a quantity: ${value}`);
  const factors: Record<string, number> = {
    '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40,
  };
  return Number(match[1]) * factors[match[2] ?? ''];
}
