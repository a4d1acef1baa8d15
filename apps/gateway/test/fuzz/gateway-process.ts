import { createTestDatabase, startS3Server } from '@loupe/storage/src/testing';
import { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, killHard, startApp, waitFor } from '../processes';

export const FUZZ_ACCOUNT = 'fuzz';
export const FUZZ_USER = 'fuzzer';
export const FUZZ_PASSWORD = 'fuzz-password';
export const FUZZ_AUTH = `Basic ${Buffer.from(`${FUZZ_USER}:${FUZZ_PASSWORD}`).toString('base64')}`;
/** The public API key of the fuzz runs: a quota and a rate limit that no run reaches, so every call gets as far as it can. */
export const FUZZ_API = { publicKey: 'pub-fuzz', privateKey: 'priv-fuzz' };

export type FuzzModeName = 'embedded' | 'real';

/** Postgres, Redis and S3 for a real-mode child gateway, created here so the child starts on an empty database. */
interface Backing {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

async function backingFor(mode: FuzzModeName, dataDir: string): Promise<Backing> {
  if (mode === 'embedded') return { env: { DATABASE_URL: '', REDIS_URL: '', S3_ENDPOINT: '' }, cleanup: async () => undefined };
  const database = await createTestDatabase(process.env.TEST_DATABASE_URL!);
  const s3 = process.env.TEST_S3_ENDPOINT
    ? { endpoint: process.env.TEST_S3_ENDPOINT, accessKey: process.env.TEST_S3_ACCESS_KEY ?? 'S3RVER', secretKey: process.env.TEST_S3_SECRET_KEY ?? 'S3RVER', close: async () => undefined }
    : await startS3Server(path.join(dataDir, 's3'));
  return {
    env: {
      DATABASE_URL: database.url,
      REDIS_URL: process.env.TEST_REDIS_URL!,
      REDIS_PREFIX: `loupe-fuzz-${randomUUID().slice(0, 8)}`,
      RUN_WORKERS: 'true',
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_BUCKET: `loupe-fuzz-${randomUUID().slice(0, 8)}`,
    },
    cleanup: async () => {
      await s3.close();
      await database.drop();
    },
  };
}

/** The resident set size of a process in bytes, from /proc (Linux, where CI runs); null elsewhere or once it is gone. */
export async function residentBytes(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** What a process wrote, shortened: OpenCV's crash handler alone can print megabytes of its own source. */
function tail(text: string, chars = 3000): string {
  return text.length <= chars ? text : `…${text.slice(-chars)}`;
}

/**
 * A gateway running as its own process, as production runs it, so that a crash is a process exit the suite sees and
 * memory is the child's RSS. A gateway that died or stopped answering is started again on the same data, so one
 * finding does not hide the next; every exit is counted for the figures.
 */
export class GatewayProcess {
  exits: Array<{ code: number | null; signal: NodeJS.Signals | null; output: string }> = [];
  restarts = 0;
  private child?: ChildProcess;
  private output: () => string = () => '';
  private port = 0;

  private constructor(
    readonly mode: FuzzModeName,
    private readonly env: Record<string, string>,
    private readonly dataDir: string,
    private readonly backing: Backing,
  ) {}

  static async start(mode: FuzzModeName): Promise<GatewayProcess> {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-fuzz-'));
    const backing = await backingFor(mode, dataDir);
    const env = {
      ...backing.env,
      DATA_DIR: dataDir,
      ACCOUNTS: `${FUZZ_ACCOUNT}:${FUZZ_USER}:${FUZZ_PASSWORD}`,
      API_KEYS: `fuzz-api:${FUZZ_API.publicKey}:${FUZZ_API.privateKey}:1000000000`,
      API_RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_REQUESTS: 'false',
      // Fuzzed URLs name literal loopback and private addresses only (never a host name to resolve), so with the
      // default refusal nothing is fetched at all; the short time limit bounds any download a regression lets through.
      ALLOW_PRIVATE_URLS: 'false',
      DOWNLOAD_TIMEOUT_MS: '3000',
    };
    const gateway = new GatewayProcess(mode, env, dataDir, backing);
    try {
      await gateway.launch();
    } catch (error) {
      await gateway.destroy();
      throw error;
    }
    return gateway;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child!.pid!;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Output of the current process, shortened. */
  recentOutput(): string {
    return tail(this.output());
  }

  async rss(): Promise<number | null> {
    return this.alive ? residentBytes(this.pid) : null;
  }

  /** Answers ping within `timeoutMs`. */
  async answers(timeoutMs = 10_000): Promise<boolean> {
    try {
      const res = await fetch(`${this.url}/mobile/${FUZZ_ACCOUNT}/rest/ping/`, { headers: { authorization: FUZZ_AUTH }, signal: AbortSignal.timeout(timeoutMs) });
      await res.text();
      return res.status === 200;
    } catch {
      return false;
    }
  }

  /** Waits briefly for a process that is going down (a crash is an exit a few milliseconds after the socket closes). */
  async settle(ms = 300): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (this.alive && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.alive;
  }

  /** Kills a gateway that no longer answers and starts a new one on the same data. */
  async restart(): Promise<void> {
    if (this.child) await killHard(this.child);
    this.restarts++;
    await this.launch();
  }

  private async launch(): Promise<void> {
    this.port = await freePort();
    const app = startApp('gateway', { ...this.env, PORT: String(this.port) });
    const child = app.child;
    this.child = child;
    this.output = app.output;
    child.once('exit', (code, signal) => {
      // A kill of ours (restart, destroy) is not a finding.
      if (signal !== 'SIGKILL' && signal !== 'SIGTERM') this.exits.push({ code, signal, output: tail(app.output()) });
    });
    await waitFor('the fuzzed gateway to answer', async () => {
      if (child.exitCode !== null) throw new Error(`The gateway exited while starting:\n${tail(app.output())}`);
      return this.answers(2_000);
    }, 120_000, 250);
  }

  async destroy(): Promise<void> {
    if (this.child) await killHard(this.child);
    await this.backing.cleanup().catch(() => undefined);
    await rm(this.dataDir, { recursive: true, force: true });
  }
}
