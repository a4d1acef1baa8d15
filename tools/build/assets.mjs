// The second half of `npm run build` (the first is `tsc -b tsconfig.build.json`, which compiles every project's
// TypeScript into dist/<project>/ with the repository's own tree: dist/libs/fingerprint/src/index.js ...).
//
// This script puts beside the compiled JavaScript what tsc does not emit, so that code which finds files relative to
// its own module (__dirname) finds them from dist/ exactly as it does from the sources:
//   - the non-TypeScript files under each project's src/ (the console's static files, the pool's worker-boot.cjs) and
//     its data/ folder (the fingerprint vocabulary; the OCR dictionaries, which tsc also emits as imported JSON);
//   - dist/node_modules/@loupe/<lib>/package.json whose `main` is the lib's compiled barrel
//     (../../../libs/<lib>/src/index.js), so that `require('@loupe/<lib>')` from dist/ resolves to compiled JavaScript:
//     Node looks in dist/node_modules before the repository's node_modules, whose @loupe links point at the TypeScript
//     sources that vitest, tsx and tsc keep using. Modules load from their real place (dist/libs/<lib>/src), once.
//   - dist/libs/<lib>/package.json (main: src/index.js), so that compiled files are CommonJS whatever the root says.
//
// Usage: node tools/build/assets.mjs [project-root ...]   (default: every project under apps/ and libs/)
// Copies only files whose size or modification time changed, so a run on an up-to-date dist/ costs milliseconds.
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIST = path.join(ROOT, 'dist');

/** Test sources and test helpers never reach dist/ (tsconfig.build.json leaves them out too). */
const skipped = (name) => name === 'node_modules' || name === 'testing' || name === 'test-support' || /\.test\.[cm]?[jt]s$/.test(name) || /\.ts$/.test(name);

function copyTree(from, to) {
  if (!existsSync(from)) return 0;
  let copied = 0;
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (skipped(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      copied += copyTree(source, target);
      continue;
    }
    const s = statSync(source);
    const t = existsSync(target) ? statSync(target) : null;
    if (t && t.size === s.size && t.mtimeMs >= s.mtimeMs) continue;
    mkdirSync(to, { recursive: true });
    copyFileSync(source, target);
    copied++;
  }
  return copied;
}

function writeIfChanged(file, text) {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** dist/node_modules/<name>/package.json whose main is the compiled barrel of the lib in dist/libs/<lib>. */
function writeEntryPackage(name, compiledLib) {
  const dir = path.join(DIST, 'node_modules', name);
  // A link left by an earlier version of this script would make the write below land in dist/libs.
  if (existsSync(dir) && lstatSync(dir).isSymbolicLink()) rmSync(dir);
  const main = path.relative(dir, path.join(compiledLib, 'src', 'index.js')).split(path.sep).join('/');
  writeIfChanged(path.join(dir, 'package.json'), `${JSON.stringify({ name, private: true, main }, null, 2)}\n`);
}

const projects = process.argv.slice(2).length
  ? process.argv.slice(2).map((p) => p.replace(/\/+$/, ''))
  : ['apps', 'libs'].flatMap((kind) => readdirSync(path.join(ROOT, kind)).map((name) => `${kind}/${name}`));

let copied = 0;
for (const project of projects) {
  const source = path.join(ROOT, project);
  if (!existsSync(path.join(source, 'tsconfig.build.json'))) continue;
  const out = path.join(DIST, project);
  copied += copyTree(path.join(source, 'src'), path.join(out, 'src'));
  copied += copyTree(path.join(source, 'data'), path.join(out, 'data'));
  if (project.startsWith('libs/')) {
    const manifest = JSON.parse(readFileSync(path.join(source, 'package.json'), 'utf8'));
    const compiled = { name: manifest.name, version: manifest.version, private: true, main: 'src/index.js', types: 'src/index.d.ts' };
    writeIfChanged(path.join(out, 'package.json'), `${JSON.stringify(compiled, null, 2)}\n`);
    // A plain file, not a link (Nx's cache and Docker's COPY keep files): its relative main
    // (../../../libs/<lib>/src/index.js) keeps working wherever dist/ is copied as a whole.
    writeEntryPackage(manifest.name, out);
  }
}
if (copied) console.error(`build: ${copied} asset file(s) copied into dist/`);
