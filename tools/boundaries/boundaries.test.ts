import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Nx module boundaries, checked without a lint toolchain: libs never import apps, apps never import each other,
 * and every cross-project import goes through the project's public barrel (`@loupe/<lib>`), except test helpers.
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

  it('every project has an Nx project.json with a type tag', () => {
    for (const kind of ['apps', 'libs'] as const) {
      for (const project of projects(kind)) {
        const config = JSON.parse(readFileSync(path.join(ROOT, kind, project, 'project.json'), 'utf8'));
        expect(config.tags, `${kind}/${project}`).toContain(kind === 'apps' ? 'type:app' : 'type:lib');
      }
    }
  });
});
