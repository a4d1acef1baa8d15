import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sceneJpeg } from './images';

const ROOT = path.resolve(__dirname, '../../..');

/** Runs the CLI as an operator would, on its own embedded data folder. */
function cli(dataDir: string, ...args: string[]): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'apps/cli/src/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'test', DATABASE_URL: '', S3_ENDPOINT: '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('public index CLI (embedded)', () => {
  let dir: string;
  const data = () => path.join(dir, 'data');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-api-cli-'));
    for (let i = 0; i < 3; i++) await writeFile(path.join(dir, `img${i}.jpg`), await sceneJpeg(900 + i, 480, 360));
    await writeFile(path.join(dir, 'broken.jpg'), 'not an image');
    await writeFile(
      path.join(dir, 'manifest.csv'),
      [
        'image,image_url,backlink,domain,crawl_date',
        'img0.jpg,https://cdn.example.com/0.jpg,https://www.example.com/a,,2024-03-01',
        'img1.jpg,https://cdn.example.com/1.jpg,https://www.example.com/b,,2024-03-02',
        'img2.jpg,https://cdn.example.com/2.jpg,"https://blog.example.org/post?x=1,2",blog,2024-03-03',
        'img0.jpg,https://mirror.example.net/0.jpg,https://mirror.example.net/,,2024-04-01',
        'broken.jpg,https://cdn.example.com/broken.jpg,https://www.example.com/c,,',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('imports a CSV manifest with progress, then finds everything done on a second run', () => {
    const first = cli(data(), 'index', 'import', path.join(dir, 'manifest.csv'));
    expect(first.status, first.out).toBe(0);
    expect(first.out).toMatch(/\d+\/5 {2}added/);
    expect(first.out).toContain('Done: 3 added, 1 backlink(s) to known images, 0 already imported, 1 failed. The index holds 3 images.');
    expect(first.out).toMatch(/line 6: .*broken\.jpg: Image cannot be identified/);
    const second = cli(data(), 'index', 'import', path.join(dir, 'manifest.csv'));
    expect(second.status, second.out).toBe(0);
    expect(second.out).toContain('Done: 0 added, 0 backlink(s) to known images, 5 already imported, 0 failed. The index holds 3 images.');
  }, 240_000);

  it('adds, lists and removes API keys, and adds search blocks', () => {
    const add = cli(data(), 'key', 'add', 'press', 'pub-press', 'priv-press');
    expect(add.status, add.out).toBe(0);
    expect(cli(data(), 'block', 'add', 'press', '500', '30', '2030-01-01').out).toContain('Block of 500 searches for "press", 2030-01-01T00:00:00.000Z to 2030-01-31T00:00:00.000Z.');
    expect(cli(data(), 'key', 'list', 'press').out).toMatch(/pub-press\tpress\t/);
    expect(cli(data(), 'key', 'remove', 'pub-press').out).toContain('API key "pub-press" revoked.');
    expect(cli(data(), 'key', 'remove', 'pub-press').status).toBe(1);
  }, 240_000);
});
