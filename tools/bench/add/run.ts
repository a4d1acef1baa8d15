/**
 * Add throughput through HTTP, the way a customer's bulk upload runs: batches of 10 images per `add`, one request at
 * a time (writes are serialised per account anyway). Embedded mode always; real mode when BENCH_DATABASE_URL and
 * BENCH_REDIS_URL are set (an s3rver is started for the blob store).
 *
 *   npx tsx tools/bench/add/run.ts [images=200] [side=1200]
 */
import { loadConfig } from '@loupe/runtime';
import { createTestDatabase, startS3Server } from '@loupe/storage/src/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { startGateway } from '../../../apps/gateway/src/bootstrap';
import { sceneSvg } from '../../../apps/gateway/test/images';

const total = Number(process.argv[2] ?? 200);
const side = Number(process.argv[3] ?? 1200);
const AUTH = `Basic ${Buffer.from('bench:bench:pw'.split(':').slice(1).join(':')).toString('base64')}`;

async function makeImages(): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < total; i++) {
    out.push(await sharp(Buffer.from(sceneSvg(1000 + i, Math.round(side * 4 / 3), side))).jpeg({ quality: 88 }).toBuffer());
  }
  return out;
}

async function run(mode: 'embedded' | 'real', images: Buffer[]): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-'));
  const env: NodeJS.ProcessEnv = { PORT: '0', METRICS_PORT: '0', DATA_DIR: dataDir, ACCOUNTS: 'bench:bench:pw', NODE_ENV: 'test' };
  const cleanups: Array<() => Promise<void>> = [() => rm(dataDir, { recursive: true, force: true })];
  if (mode === 'real') {
    const db = await createTestDatabase(process.env.BENCH_DATABASE_URL!);
    const s3 = await startS3Server(path.join(dataDir, 's3'));
    cleanups.unshift(db.drop, s3.close);
    Object.assign(env, {
      DATABASE_URL: db.url, REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_PREFIX: `bench-${Date.now()}`, RUN_WORKERS: 'true',
      S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_BUCKET: 'bench',
    });
  }
  const gateway = await startGateway(loadConfig(env), { host: '127.0.0.1' });
  try {
    const started = performance.now();
    for (let i = 0; i < images.length; i += 10) {
      const form = new FormData();
      images.slice(i, i + 10).forEach((data, j) => form.append(`images[${j}]`, new Blob([data]), `bench/${i + j}.jpg`));
      const res = await fetch(`${gateway.url}/mobile/bench/rest/add/`, { method: 'POST', headers: { authorization: AUTH }, body: form });
      const body = (await res.json()) as { status: string; error: string[] };
      if (body.status !== 'ok') throw new Error(`add failed: ${body.error.join('; ')}`);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`${mode}: ${images.length} images of ${Math.round(side * 4 / 3)}x${side} in ${seconds.toFixed(1)} s = ${(images.length / seconds).toFixed(1)} images/s`);
  } finally {
    await gateway.close();
    for (const cleanup of cleanups) await cleanup();
  }
}

async function main(): Promise<void> {
  const images = await makeImages();
  await run('embedded', images);
  if (process.env.BENCH_DATABASE_URL && process.env.BENCH_REDIS_URL) await run('real', images);
  else console.log('real: skipped (set BENCH_DATABASE_URL and BENCH_REDIS_URL)');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
