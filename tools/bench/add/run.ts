/**
 * Add throughput of one account, three ways, each on a fresh embedded store (PGlite, folder blobs):
 *  - processor: the ingest processor a worker runs (createWorkerServices), batches of 10 staged beforehand, one
 *    call at a time; only the calls are timed;
 *  - cli: the CLI's bulk add (`loupe add <account> mobile <folder>`) over a folder of the images, timed whole;
 *  - http: the gateway's `add` (mobile), batches of 10 per request, one request at a time (writes are serialised per
 *    account anyway), timed whole. Also in real mode (Postgres, Redis/BullMQ with the worker in the gateway process,
 *    s3rver) when BENCH_DATABASE_URL and BENCH_REDIS_URL are set.
 *  - fleet (real mode only, with BENCH_DATABASE_URL and BENCH_REDIS_URL): the gateway's `add` as above, served by
 *    separate worker processes (apps/worker) with INGEST_FAN_OUT: the first runs the account's ingest jobs (the
 *    commits) and prepares images, the others only prepare (`ingest_prepare`); one run per count of --workers
 *    (default 1,2,4), each worker with --worker-threads compute threads (default 1) and WORKER_CONCURRENCY as many.
 *    CPU is that of the worker processes (/proc), the commits' included.
 * Images: synthetic scenes of 4/3·side × side (JPEG q88), or the JPEG/PNG files of --photos DIR (sorted, the first
 * `images`). COMPUTE_THREADS sets the compute threads of the processors (0: everything in the calling thread).
 * The processor and HTTP runs add one untimed batch first (under other paths), so threads and OpenCV are loaded as in
 * a worker that has served before; the CLI run is a whole command, start-up included.
 *
 *   npx tsx tools/bench/add/run.ts [images=200] [side=1200] [--photos DIR] [--only processor,cli,http,fleet]
 *     [--workers 1,2,4] [--worker-threads 1]
 */
import { createWorkerServices, IngestPayload, IngestResult, JobKind, stagingKey } from '@loupe/jobs';
import { ensureAccountUser, loadConfig, openInfrastructure } from '@loupe/runtime';
import { createTestDatabase, startS3Server } from '@loupe/storage/src/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { bulkAdd, readSource } from '../../../apps/cli/src/bulk-add';
import { startGateway } from '../../../apps/gateway/src/bootstrap';
import { sceneSvg } from '../../../apps/gateway/test/images';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const photos = option('--photos');
const only = new Set((option('--only') ?? 'processor,cli,http,fleet').split(','));
const workerCounts = (option('--workers') ?? '1,2,4').split(',').map(Number);
const workerThreads = Number(option('--worker-threads') ?? 1);
const total = Number(args[0] ?? 200);
const side = Number(args[1] ?? 1200);
const AUTH = `Basic ${Buffer.from('bench:pw').toString('base64')}`;
const BATCH = 10;

interface Input {
  name: string;
  data: Buffer;
}

async function makeImages(): Promise<Input[]> {
  if (photos) {
    const names = (await readdir(photos)).filter((n) => /\.(jpe?g|png|webp)$/i.test(n)).sort().slice(0, total);
    return Promise.all(names.map(async (name) => ({ name, data: await readFile(path.join(photos, name)) })));
  }
  const out: Input[] = [];
  for (let i = 0; i < total; i++) {
    out.push({ name: `${i}.jpg`, data: await sharp(Buffer.from(sceneSvg(1000 + i, Math.round((side * 4) / 3), side))).jpeg({ quality: 88 }).toBuffer() });
  }
  return out;
}

/**
 * Images per second of wall time, and CPU time of the whole process (every thread, libvips' included) per image: on a
 * machine others are using, wall time says what this run got, CPU time what the work costs, and cores / CPU time per
 * image is the rate this many idle cores would give if the work spread over them.
 */
function rate(label: string, count: number, ms: number, cpu: NodeJS.CpuUsage): void {
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const idleRate = (os.availableParallelism() * 1000) / (cpuMs / count);
  console.log(
    `${label}: ${count} images in ${(ms / 1000).toFixed(1)} s = ${(count / (ms / 1000)).toFixed(1)} images/s; ` +
      `CPU ${(cpuMs / count).toFixed(0)} ms/image (${(cpuMs / ms).toFixed(2)} cores busy; ${idleRate.toFixed(1)} images/s on ${os.availableParallelism()} idle cores if spread)`,
  );
}

/** One mobile `add` call of `batch` under `folder/`, as a client sends it. */
async function addOverHttp(gatewayUrl: string, batch: Input[], folder: string): Promise<void> {
  const form = new FormData();
  batch.forEach((image, j) => form.append(`images[${j}]`, new Blob([image.data]), `${folder}/${image.name}`));
  const res = await fetch(`${gatewayUrl}/mobile/bench/rest/add/`, { method: 'POST', headers: { authorization: AUTH }, body: form });
  const body = (await res.json()) as { status: string; error: string[] };
  if (body.status !== 'ok') throw new Error(`add failed: ${body.error.join('; ')}`);
}

async function withEmbedded<T>(work: (dataDir: string) => Promise<T>): Promise<T> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-'));
  try {
    return await work(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function viaProcessor(images: Input[]): Promise<void> {
  await withEmbedded(async (dataDir) => {
    const infra = await openInfrastructure(loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' }));
    const services = createWorkerServices({ images: infra.images, blobs: infra.blobs, matchIndex: infra.matchIndex, db: infra.db });
    try {
      await ensureAccountUser(infra.accounts, { account: 'bench', username: 'bench', password: 'pw' });
      const account = (await infra.accounts.find('bench'))!;
      let ms = 0;
      let added = 0;
      const cpu = { user: 0, system: 0 };
      for (let i = -BATCH; i < images.length; i += BATCH) {
        const warmUp = i < 0;
        const items = [];
        for (const image of warmUp ? images.slice(0, BATCH) : images.slice(i, i + BATCH)) {
          const staged_key = stagingKey();
          await infra.blobs.put(staged_key, image.data);
          items.push({ filepath: `${warmUp ? 'warm-up' : 'bench'}/${image.name}`, image_id: null, staged_key });
        }
        const payload: IngestPayload = { account_id: account.id, account: 'bench', service: 'mobile', items, on_existing: 'refuse', preferred_side: 600, crop_borders: true };
        const started = performance.now();
        const cpuStart = process.cpuUsage();
        const result = (await services.processors[JobKind.Ingest](payload, { kind: JobKind.Ingest, group: 'bench', attempt: 1 })) as IngestResult;
        const used = process.cpuUsage(cpuStart);
        if (warmUp) continue;
        ms += performance.now() - started;
        cpu.user += used.user;
        cpu.system += used.system;
        added += result.added.length;
      }
      rate('processor (embedded)', added, ms, cpu);
    } finally {
      await services.close();
      await infra.close();
    }
  });
}

async function viaCli(images: Input[]): Promise<void> {
  await withEmbedded(async (dataDir) => {
    const folder = path.join(dataDir, 'source');
    await mkdir(folder);
    for (const image of images) await writeFile(path.join(folder, image.name), image.data);
    const infra = await openInfrastructure(loadConfig({ DATA_DIR: path.join(dataDir, 'data'), NODE_ENV: 'test' }));
    try {
      await ensureAccountUser(infra.accounts, { account: 'bench', username: 'bench', password: 'pw' });
      const started = performance.now();
      const cpuStart = process.cpuUsage();
      const result = await bulkAdd(infra, 'bench', 'mobile', await readSource(folder));
      if (result.failed > 0) console.log(`cli: ${result.failed} failed, e.g. ${result.errors[0]}`);
      rate('cli add (embedded)', result.added, performance.now() - started, process.cpuUsage(cpuStart));
    } finally {
      await infra.close();
    }
  });
}

async function viaHttp(mode: 'embedded' | 'real', images: Input[]): Promise<void> {
  await withEmbedded(async (dataDir) => {
    const env: NodeJS.ProcessEnv = { PORT: '0', METRICS_PORT: '0', DATA_DIR: dataDir, ACCOUNTS: 'bench:bench:pw', NODE_ENV: 'test' };
    const cleanups: Array<() => Promise<void>> = [];
    if (mode === 'real') {
      const db = await createTestDatabase(process.env.BENCH_DATABASE_URL!);
      const s3 = await startS3Server(path.join(dataDir, 's3'));
      cleanups.push(db.drop, s3.close);
      Object.assign(env, {
        DATABASE_URL: db.url, REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_PREFIX: `bench-${Date.now()}`, RUN_WORKERS: 'true',
        S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_BUCKET: 'bench',
      });
    }
    const gateway = await startGateway(loadConfig(env), { host: '127.0.0.1' });
    const add = (batch: Input[], folder: string) => addOverHttp(gateway.url, batch, folder);
    try {
      await add(images.slice(0, BATCH), 'warm-up');
      const started = performance.now();
      const cpuStart = process.cpuUsage();
      for (let i = 0; i < images.length; i += BATCH) await add(images.slice(i, i + BATCH), 'bench');
      // Real mode: the s3rver and the test client share the process; Postgres and Redis are not counted.
      rate(`http add (${mode})`, images.length, performance.now() - started, process.cpuUsage(cpuStart));
    } finally {
      await gateway.close();
      for (const cleanup of cleanups) await cleanup();
    }
  });
}

/** CPU milliseconds a process has used so far (user + system, every thread), from /proc. */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function startWorker(env: NodeJS.ProcessEnv, queues: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../../apps/worker/src/main.ts')], {
    env: { ...process.env, ...env, WORKER_QUEUES: queues },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      seen += chunk;
      if (seen.includes('Loupe worker ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${seen}`)));
  });
}

async function viaFleet(images: Input[], workers: number): Promise<void> {
  await withEmbedded(async (dataDir) => {
    const db = await createTestDatabase(process.env.BENCH_DATABASE_URL!);
    const s3 = await startS3Server(path.join(dataDir, 's3'));
    const shared: NodeJS.ProcessEnv = {
      NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: db.url, REDIS_URL: process.env.BENCH_REDIS_URL, REDIS_PREFIX: `bench-${Date.now()}`,
      S3_ENDPOINT: s3.endpoint, S3_ACCESS_KEY: s3.accessKey, S3_SECRET_KEY: s3.secretKey, S3_BUCKET: 'bench',
    };
    const gateway = await startGateway(loadConfig({ ...shared, PORT: '0', METRICS_PORT: '0', ACCOUNTS: 'bench:bench:pw' }), { host: '127.0.0.1' });
    const workerEnv = { ...shared, METRICS_PORT: '0', INGEST_FAN_OUT: 'true', COMPUTE_THREADS: String(workerThreads), WORKER_CONCURRENCY: String(workerThreads) };
    const children: ChildProcess[] = [];
    try {
      children.push(await startWorker(workerEnv, 'ingest,ingest_prepare'));
      for (let i = 1; i < workers; i++) children.push(await startWorker(workerEnv, 'ingest_prepare'));
      const add = (batch: Input[], folder: string) => addOverHttp(gateway.url, batch, folder);
      // Every worker loads OpenCV and its modules once: a warm-up batch per worker.
      for (let i = 0; i < workers; i++) await add(images.slice(0, BATCH), `warm-up-${i}`);
      const started = performance.now();
      const workersCpu = children.map((c) => processCpuMs(c.pid!));
      const cpuStart = process.cpuUsage();
      for (let i = 0; i < images.length; i += BATCH) await add(images.slice(i, i + BATCH), 'bench');
      const ms = performance.now() - started;
      const used = children.reduce((sum, c, i) => sum + processCpuMs(c.pid!) - workersCpu[i], 0);
      const gatewayCpu = process.cpuUsage(cpuStart);
      rate(`http add (real, ${workers} worker process${workers > 1 ? 'es' : ''} × ${workerThreads} thread${workerThreads > 1 ? 's' : ''}, INGEST_FAN_OUT; workers' CPU)`, images.length, ms, { user: used * 1000, system: 0 });
      console.log(`  gateway + s3rver process: ${((gatewayCpu.user + gatewayCpu.system) / 1000 / images.length).toFixed(0)} ms CPU/image`);
    } finally {
      for (const child of children) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await gateway.close();
      await s3.close();
      await db.drop();
    }
  });
}

async function main(): Promise<void> {
  const images = await makeImages();
  const source = photos ? `${images.length} files of ${photos}` : `${images.length} synthetic ${Math.round((side * 4) / 3)}x${side} JPEGs`;
  console.log(`${source}; ${os.availableParallelism()} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; COMPUTE_THREADS=${process.env.COMPUTE_THREADS ?? 'default'}`);
  if (only.has('processor')) await viaProcessor(images);
  if (only.has('cli')) await viaCli(images);
  if (only.has('http')) {
    await viaHttp('embedded', images);
    if (process.env.BENCH_DATABASE_URL && process.env.BENCH_REDIS_URL) await viaHttp('real', images);
    else console.log('http add (real): skipped (set BENCH_DATABASE_URL and BENCH_REDIS_URL)');
  }
  if (only.has('fleet')) {
    if (process.env.BENCH_DATABASE_URL && process.env.BENCH_REDIS_URL) for (const count of workerCounts) await viaFleet(images, count);
    else console.log('fleet: skipped (set BENCH_DATABASE_URL and BENCH_REDIS_URL)');
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
