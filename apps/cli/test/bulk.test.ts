import { ensureAccountUser, Infrastructure, loadConfig, openInfrastructure } from '@loupe/runtime';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkAdd, readSource } from '../src/bulk-add';
import { archiveName, exportCollection, importCollection } from '../src/collection-archive';
import { progressLine } from '../src/progress';
import { readTar } from '../src/tar';
import { sceneJpeg } from './images';

const ROOT = path.resolve(__dirname, '../../..');

describe('CLI bulk add, export and import (embedded)', () => {
  let work: string;
  let infra: Infrastructure;
  const originals = new Map<string, Buffer>();

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'loupe-cli-test-'));
    infra = await openInfrastructure(loadConfig({ DATA_DIR: path.join(work, 'data'), NODE_ENV: 'test' }));
    for (const account of ['acme', 'copy']) await ensureAccountUser(infra.accounts, { account, username: 'u', password: 'p' });
    // 12 images in two folders (two batches: 10 + 2), a note that is not an image, and a corrupt JPEG.
    for (let i = 0; i < 12; i++) {
      const filepath = `${i < 6 ? 'posters' : 'cards/2026'}/img${String(i).padStart(2, '0')}.jpg`;
      const data = await sceneJpeg(100 + i);
      originals.set(filepath, data);
      await mkdir(path.join(work, 'folder', path.dirname(filepath)), { recursive: true });
      await writeFile(path.join(work, 'folder', filepath), data);
    }
    await writeFile(path.join(work, 'folder', 'README.txt'), 'not an image');
  }, 120_000);

  afterAll(async () => {
    await infra?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const ref = async (account: string, service: string) => ({ accountId: (await infra.accounts.find(account))!.id, service });

  it('adds a folder in batches of 10 with progress, and a second run skips what is there', async () => {
    const images = await readSource(path.join(work, 'folder'));
    expect(images.map((i) => i.filepath)).toEqual([...originals.keys()].sort());
    const progress: number[] = [];
    const first = await bulkAdd(infra, 'acme', 'mobile', images, (c) => progress.push(c.done));
    expect(first).toMatchObject({ total: 12, added: 12, skipped: 0, failed: 0 });
    expect(progress).toEqual([10, 12]);
    const rows = await infra.images.findByPaths(await ref('acme', 'mobile'), [...originals.keys()]);
    expect(rows.size).toBe(12);
    expect([...rows.values()].every((r) => r.fingerprint_health > 0)).toBe(true);

    const again = await bulkAdd(infra, 'acme', 'mobile', images);
    expect(again).toMatchObject({ added: 0, skipped: 12, failed: 0 });
  }, 180_000);

  it('adds from a manifest with paths and image ids, naming files it cannot add', async () => {
    await writeFile(path.join(work, 'broken.jpg'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]));
    const manifest = [
      JSON.stringify({ file: 'folder/posters/img00.jpg', filepath: 'manifest/first.jpg', image_id: 'sku-1' }),
      '# a comment line',
      JSON.stringify({ file: 'broken.jpg', filepath: 'manifest/broken.jpg' }),
      JSON.stringify({ file: 'missing.jpg', filepath: 'manifest/missing.jpg' }),
    ].join('\n');
    await writeFile(path.join(work, 'list.jsonl'), manifest);
    const result = await bulkAdd(infra, 'acme', 'match', await readSource(path.join(work, 'list.jsonl')));
    expect(result).toMatchObject({ total: 3, added: 1, failed: 2 });
    expect(result.errors.find((e) => e.startsWith('manifest/broken.jpg:'))).toBeDefined();
    expect(result.errors.find((e) => e.startsWith('manifest/missing.jpg: cannot read'))).toBeDefined();
    const row = (await infra.images.findByPaths(await ref('acme', 'match'), ['manifest/first.jpg'])).get('manifest/first.jpg');
    expect(row?.image_id).toBe('sku-1');
  }, 120_000);

  it('commits batches in source order, and skips a path of a later batch that an earlier one added', async () => {
    const files = [...originals.keys()].sort();
    const manifest = async (name: string, entries: Array<[file: string, filepath: string]>) => {
      await writeFile(path.join(work, name), entries.map(([file, filepath]) => JSON.stringify({ file: `folder/${file}`, filepath })).join('\n'));
      return readSource(path.join(work, name));
    };
    // Two batches in flight: the second (2 images) is staged and prepared long before the first (10) has committed.
    const ordered = await bulkAdd(infra, 'acme', 'match', await manifest('order.jsonl', files.map((file, i) => [file, `order/${i}`])));
    expect(ordered).toMatchObject({ total: 12, added: 12 });
    const stored = async (prefix: string) => (await infra.images.listPaths(await ref('acme', 'match'), 0, 0)).filter((p) => p.startsWith(prefix));
    expect(await stored('order/')).toEqual(files.map((_, i) => `order/${i}`));

    const repeated = await bulkAdd(infra, 'acme', 'match', await manifest('repeated.jsonl', [...files.slice(0, 10).map((file, i): [string, string] => [file, `repeat/${i}`]), [files[10], 'repeat/0']]));
    expect(repeated).toMatchObject({ total: 11, added: 10, skipped: 1, failed: 0 });
    expect(await stored('repeat/')).toEqual(files.slice(0, 10).map((_, i) => `repeat/${i}`));
  }, 120_000);

  it('exports originals and a manifest to a folder and to a tar, and imports them into another account', async () => {
    const folder = path.join(work, 'export');
    const tar = path.join(work, 'export.tar');
    expect(await exportCollection(infra, 'acme', 'mobile', folder)).toEqual({ exported: 12, missing: [] });
    expect(await exportCollection(infra, 'acme', 'mobile', tar)).toEqual({ exported: 12, missing: [] });

    const lines = (await readFile(path.join(folder, 'manifest.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.filepath)).toEqual([...originals.keys()].sort());
    expect(lines[0]).toEqual({ file: 'images/cards/2026/img06.jpg', filepath: 'cards/2026/img06.jpg', image_id: null });
    expect(await readFile(path.join(folder, 'images/posters/img01.jpg'))).toEqual(originals.get('posters/img01.jpg'));
    const entries = new Map<string, Buffer>();
    for await (const entry of readTar(tar)) entries.set(entry.name, entry.data);
    expect(entries.get('images/posters/img03.jpg')).toEqual(originals.get('posters/img03.jpg'));
    expect(entries.get('manifest.jsonl')?.toString()).toBe(await readFile(path.join(folder, 'manifest.jsonl'), 'utf8'));

    expect(await importCollection(infra, 'copy', 'mobile', tar)).toMatchObject({ added: 12, failed: 0 });
    expect(await infra.images.listPaths(await ref('copy', 'mobile'), 0, 0)).toEqual(await infra.images.listPaths(await ref('acme', 'mobile'), 0, 0));
    expect(await importCollection(infra, 'copy', 'mobile', folder)).toMatchObject({ added: 0, skipped: 12 });
  }, 180_000);

  it('keeps image ids and color metadata through export and import', async () => {
    const metadata = { keywords: ['summer', 'sale'] };
    await writeFile(path.join(work, 'color.jsonl'), `${JSON.stringify({ file: 'folder/posters/img02.jpg', filepath: 'c/a.jpg', image_id: 'id-a', metadata })}\n`);
    expect(await bulkAdd(infra, 'acme', 'color', await readSource(path.join(work, 'color.jsonl')))).toMatchObject({ added: 1 });
    const stored = (await infra.images.findByPaths(await ref('acme', 'color'), ['c/a.jpg'])).get('c/a.jpg')!;
    await exportCollection(infra, 'acme', 'color', path.join(work, 'color-export'));
    expect(await importCollection(infra, 'copy', 'color', path.join(work, 'color-export'))).toMatchObject({ added: 1 });
    const copied = (await infra.images.findByPaths(await ref('copy', 'color'), ['c/a.jpg'])).get('c/a.jpg')!;
    expect(copied.image_id).toBe('id-a');
    expect(copied.metadata).toEqual(stored.metadata);
  }, 120_000);

  it('names unsafe or long filepaths by a hash inside the archive', () => {
    expect(archiveName('a/b.jpg', 'jpeg')).toBe('images/a/b.jpg');
    expect(archiveName('../../etc/passwd', 'jpeg')).toMatch(/^images\/_\/[0-9a-f]{40}\.jpeg$/);
    expect(archiveName(`${'x'.repeat(120)}.jpg`, 'png')).toMatch(/^images\/_\/[0-9a-f]{40}\.png$/);
    expect(progressLine({ done: 5, total: 10, added: 4, skipped: 1, failed: 0 })).toBe(`[${'#'.repeat(15)}${'-'.repeat(15)}] 5/10  added 4  skipped 1  failed 0`);
  });
});

describe('npm run cli -- add / export / import (a real process)', () => {
  let work: string;

  beforeAll(async () => {
    work = await mkdtemp(path.join(os.tmpdir(), 'loupe-cli-process-'));
    await mkdir(path.join(work, 'in'));
    for (let i = 0; i < 3; i++) await writeFile(path.join(work, 'in', `p${i}.jpg`), await sceneJpeg(300 + i));
  });
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/cli/src/main.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: path.join(work, 'data'), DATABASE_URL: '', REDIS_URL: '', S3_ENDPOINT: '' },
      encoding: 'utf8',
      timeout: 120_000,
    });

  it('adds a folder with a progress bar on stderr, exports it to a tar and imports it into a second account', () => {
    expect(cli('account', 'add', 'acme', 'u', 'p').status).toBe(0);
    expect(cli('account', 'add', 'other', 'u', 'p').status).toBe(0);
    const add = cli('add', 'acme', 'match', path.join(work, 'in'));
    expect(add.status, add.stderr).toBe(0);
    expect(add.stderr).toContain(`[${'#'.repeat(30)}] 3/3  added 3  skipped 0  failed 0`);
    expect(add.stdout).toContain('Done: 3 added, 0 already present, 0 failed (of 3).');
    const exported = cli('export', 'acme', 'match', path.join(work, 'out.tar'));
    expect(exported.stdout, exported.stderr).toContain('Exported 3 image(s) of acme/match');
    const imported = cli('import', 'other', 'match', path.join(work, 'out.tar'));
    expect(imported.stdout, imported.stderr).toContain('Done: 3 added');
    const unknown = cli('add', 'acme', 'nosuch', path.join(work, 'in'));
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('There is no collection service named "nosuch"');
  }, 300_000);

  it('sweeps collection blobs that no image points to, and keeps those of the added images', async () => {
    // What a process killed between an image's blobs and its row leaves, two days ago.
    const orphan = path.join(work, 'data', 'blobs', 'collections', 'acme', 'match', 'f00d', 'crashed-add', 'original');
    await mkdir(path.dirname(orphan), { recursive: true });
    await writeFile(orphan, 'left behind');
    const twoDaysAgo = new Date(Date.now() - 48 * 3_600_000);
    await utimes(orphan, twoDaysAgo, twoDaysAgo);
    const swept = cli('blobs', 'sweep');
    expect(swept.stdout, swept.stderr).toContain('Deleted 1 collection blob(s) that no image points to; 0 in use; 12 younger than 25 h');
    expect(existsSync(orphan)).toBe(false);
    const exported = cli('export', 'acme', 'match', path.join(work, 'again.tar'));
    expect(exported.stdout, exported.stderr).toContain('Exported 3 image(s) of acme/match');
  }, 120_000);
});
