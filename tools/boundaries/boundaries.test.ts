import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * Module boundaries. `npm run lint` enforces them with @nx/enforce-module-boundaries (eslint.config.mjs): layer tags
 * (pure < infra < domain < wiring < app), no app imported, no relative import into another project, no cycle. The
 * last describe below proves that rule is live on this repository (it silently skips itself when Nx has no project
 * graph, or finds no dependency when Nx does not analyse the sources). The regex checks first back it without a lint
 * toolchain, and add what the rule does not check: production code imports other libs through their barrel only.
 */
const ROOT = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.ts$/.test(name) ? [full] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|require\(\s*|import\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

const projects = (kind: 'apps' | 'libs') =>
  readdirSync(path.join(ROOT, kind)).filter((name) => statSync(path.join(ROOT, kind, name)).isDirectory());

describe('project boundaries', () => {
  it('libs import no app, neither by package name nor by relative path', () => {
    const offenders: string[] = [];
    for (const lib of projects('libs')) {
      for (const file of sourceFiles(path.join(ROOT, 'libs', lib))) {
        for (const spec of importsOf(file)) {
          const resolved = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : '';
          if (spec.startsWith('@loupe/app-') || resolved.startsWith(path.join(ROOT, 'apps'))) {
            offenders.push(`${path.relative(ROOT, file)} imports ${spec}`);
          }
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('apps import no other app', () => {
    const offenders: string[] = [];
    for (const app of projects('apps')) {
      for (const file of sourceFiles(path.join(ROOT, 'apps', app))) {
        for (const spec of importsOf(file)) {
          const resolved = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : '';
          const otherApp = spec.startsWith('@loupe/app-') || (resolved.startsWith(path.join(ROOT, 'apps')) && !resolved.startsWith(path.join(ROOT, 'apps', app)));
          if (otherApp) offenders.push(`${path.relative(ROOT, file)} imports ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('production code reaches other libs only through their public barrel', () => {
    const offenders: string[] = [];
    for (const kind of ['apps', 'libs'] as const) {
      for (const project of projects(kind)) {
        for (const file of sourceFiles(path.join(ROOT, kind, project, 'src'))) {
          if (/\.test\.ts$|[\\/]testing[\\/]/.test(file)) continue;
          for (const spec of importsOf(file)) {
            if (/^@loupe\/[^/]+\/./.test(spec)) offenders.push(`${path.relative(ROOT, file)} imports ${spec}`);
          }
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  it('every project has an Nx project.json with a type tag, one layer tag, and build, typecheck, lint and test targets', () => {
    for (const kind of ['apps', 'libs'] as const) {
      for (const project of projects(kind)) {
        const config = JSON.parse(readFileSync(path.join(ROOT, kind, project, 'project.json'), 'utf8'));
        expect(config.tags, `${kind}/${project}`).toContain(kind === 'apps' ? 'type:app' : 'type:lib');
        const layers = (config.tags as string[]).filter((t) => t.startsWith('layer:'));
        expect(layers, `${kind}/${project}`).toHaveLength(1);
        expect(LAYERS, `${kind}/${project}`).toContain(layers[0]);
        expect(layers[0] === 'layer:app', `${kind}/${project}`).toBe(kind === 'apps');
        expect(Object.keys(config.targets).sort(), `${kind}/${project}`).toEqual(['build', 'lint', 'test', 'typecheck']);
      }
    }
  });
});

const LAYERS = ['layer:pure', 'layer:infra', 'layer:domain', 'layer:wiring', 'layer:app'];

describe('the build (tsconfig.build.json per project, tsc -b)', () => {
  it('references exactly the libs each project imports in production code, and the root builds every project', () => {
    // tsc -b compiles a project against the declarations of the projects it references: an import of a lib the
    // project does not reference fails the build, and a stale reference builds a lib for nothing.
    const all: string[] = [];
    for (const kind of ['apps', 'libs'] as const) {
      for (const project of projects(kind)) {
        all.push(`./${kind}/${project}/tsconfig.build.json`);
        const config = JSON.parse(readFileSync(path.join(ROOT, kind, project, 'tsconfig.build.json'), 'utf8'));
        const referenced = ((config.references ?? []) as { path: string }[]).map((r) => r.path.match(/libs\/([^/]+)\//)![1]).sort();
        const imported = new Set<string>();
        for (const file of sourceFiles(path.join(ROOT, kind, project, 'src'))) {
          if (/\.test\.ts$|[\\/](testing|test-support)[\\/]/.test(file)) continue;
          for (const spec of importsOf(file)) {
            const lib = /^@loupe\/([^/]+)$/.exec(spec)?.[1];
            if (lib && lib !== project) imported.add(lib);
          }
        }
        expect(referenced, `${kind}/${project}/tsconfig.build.json references`).toEqual([...imported].sort());
      }
    }
    const root = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8'));
    expect((root.references as { path: string }[]).map((r) => r.path).sort()).toEqual(all.sort());
  });
});

describe('@nx/enforce-module-boundaries on this repository (eslint.config.mjs)', () => {
  let eslint: ESLint;

  beforeAll(() => {
    // The rule reads the project graph Nx caches; `npm run lint` computes it first in the same way.
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, NX_DAEMON: 'false' } });
    eslint = new ESLint({ cwd: ROOT });
  }, 120_000);

  /** Lints `code` as if it were the file `file` of the repository (the file need not exist). */
  const boundaryErrors = async (file: string, code: string): Promise<string[]> => {
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
    return result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  };

  it('lets a layer use its own layer and the ones below it', async () => {
    expect(await boundaryErrors('libs/runtime/src/probe.ts', "import { openDatabase } from '@loupe/storage';\nexport const x = openDatabase;\n")).toEqual([]);
    expect(await boundaryErrors('libs/queue/src/probe.ts', "import { Vocabulary } from '@loupe/fingerprint';\nexport const x = Vocabulary;\n")).toEqual([]);
    expect(await boundaryErrors('apps/worker/src/probe.ts', "import { loadConfig } from '@loupe/runtime';\nexport const x = loadConfig;\n")).toEqual([]);
  });

  it('refuses an import of a higher layer', async () => {
    // pure -> infra, infra -> domain: neither closes a cycle, so only the tags can refuse them.
    const pureToInfra = await boundaryErrors('libs/fingerprint/src/probe.ts', "import { openDatabase } from '@loupe/storage';\nexport const x = openDatabase;\n");
    expect(pureToInfra.join('\n')).toMatch(/layer:pure.*can only depend on libs tagged with.*layer:pure/s);
    const infraToDomain = await boundaryErrors('libs/storage/src/probe.ts', "import { hashPassword } from '@loupe/auth';\nexport const x = hashPassword;\n");
    expect(infraToDomain.join('\n')).toMatch(/layer:infra.*can only depend on libs tagged with/s);
  });

  it('refuses an app imported by anything, a relative import into another project, and a cycle', async () => {
    expect((await boundaryErrors('apps/worker/src/probe.ts', "import { x } from '@loupe/app-gateway';\nexport const y = x;\n")).join('\n')).toMatch(/Imports of apps are forbidden/);
    expect((await boundaryErrors('libs/storage/src/probe.ts', "import { startGateway } from '../../../apps/gateway/src/bootstrap';\nexport const x = startGateway;\n")).join('\n')).toMatch(/relative or absolute path/);
    expect((await boundaryErrors('libs/jobs/src/probe.ts', "import { loadConfig } from '@loupe/runtime';\nexport const x = loadConfig;\n")).join('\n')).toMatch(/Circular dependency between "jobs" and "runtime"/);
  });
});
