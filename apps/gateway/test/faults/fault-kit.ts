import { JobKind } from '@loupe/jobs';
import { bullPrefix } from '@loupe/queue/src/redis/connection';
import { AppConfig, openInfrastructure } from '@loupe/runtime';
import { Job, Queue } from 'bullmq';
import { sceneJpeg } from '../images';

/**
 * Tools of the fault suites: a client load that keeps adding and remembers what was acknowledged, an audit of the
 * database and the blob store after the dust settles, and a view of the ingest jobs a worker is running.
 */

export interface Credentials {
  account: string;
  user: string;
  password: string;
}

export const FAULT_ACCOUNTS: Credentials[] = [
  { account: 'acme', user: 'alice', password: 'wonderland' },
  { account: 'beta', user: 'bob', password: 'builder' },
  { account: 'gamma', user: 'carol', password: 'sesame' },
  { account: 'delta', user: 'dave', password: 'door' },
  { account: 'epsilon', user: 'erin', password: 'echo' },
  { account: 'zeta', user: 'zoe', password: 'zest' },
];

export const FAULT_ACCOUNTS_ENV = FAULT_ACCOUNTS.map((c) => `${c.account}:${c.user}:${c.password}`).join(',');

export interface AddCall {
  account: string;
  paths: string[];
  /** HTTP status, or null when no answer came (connection error or the client's bound ran out). */
  httpStatus: number | null;
  envelopeStatus?: string;
  errors: string[];
  /** Paths the answer acknowledges: all of an `ok`, those a `warn` does not name. */
  acknowledged: string[];
  ms: number;
  outcome: 'answered' | 'connection-error' | 'hung';
  detail?: string;
}

export interface LoadFigures {
  calls: number;
  imagesSent: number;
  acknowledged: number;
  okCalls: number;
  warnCalls: number;
  failCalls: number;
  connectionErrors: number;
  hung: number;
  maxCallMs: number;
  /** Each distinct error message of a failed call, with how many calls had it. */
  failures: Record<string, number>;
}

/**
 * One client per account adding batches of 1-3 fresh images to `service`, back to back, until stopped. Every call is
 * bounded by `callBoundMs` on the client side, so a call the system never answers shows up as `hung` instead of
 * stalling the test.
 */
export class AddLoad {
  readonly calls: AddCall[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private seed: number;

  constructor(
    private readonly url: string,
    private readonly opts: { tag: string; service?: string; callBoundMs: number; accounts?: Credentials[]; seed?: number },
  ) {
    this.seed = opts.seed ?? 1_000;
  }

  start(): this {
    this.running = true;
    this.loops = (this.opts.accounts ?? FAULT_ACCOUNTS).map((credentials) => this.loop(credentials));
    return this;
  }

  /** Stops sending and waits for the calls in flight to end (each is bounded). */
  async stop(): Promise<LoadFigures> {
    this.running = false;
    await Promise.all(this.loops);
    return this.figures();
  }

  authOf(account: string): string {
    return basicAuth((this.opts.accounts ?? FAULT_ACCOUNTS).find((c) => c.account === account)!);
  }

  acknowledged(): Array<{ account: string; filepath: string }> {
    return this.calls.flatMap((c) => c.acknowledged.map((filepath) => ({ account: c.account, filepath })));
  }

  figures(): LoadFigures {
    const count = (f: (c: AddCall) => boolean) => this.calls.filter(f).length;
    return {
      calls: this.calls.length,
      imagesSent: this.calls.reduce((n, c) => n + c.paths.length, 0),
      acknowledged: this.acknowledged().length,
      okCalls: count((c) => c.envelopeStatus === 'ok'),
      warnCalls: count((c) => c.envelopeStatus === 'warn'),
      failCalls: count((c) => c.envelopeStatus === 'fail'),
      connectionErrors: count((c) => c.outcome === 'connection-error'),
      hung: count((c) => c.outcome === 'hung'),
      maxCallMs: Math.max(0, ...this.calls.map((c) => c.ms)),
      failures: this.calls
        .filter((c) => c.envelopeStatus !== 'ok' && c.envelopeStatus !== 'warn')
        .map((c) => c.errors[0] ?? c.detail ?? c.outcome)
        .reduce<Record<string, number>>((counts, message) => ({ ...counts, [message]: (counts[message] ?? 0) + 1 }), {}),
    };
  }

  private async loop(credentials: Credentials): Promise<void> {
    let n = 0;
    while (this.running) {
      const size = 1 + (n % 3);
      const files = [];
      for (let i = 0; i < size; i++) {
        const seed = this.seed++;
        files.push({ filepath: `${this.opts.tag}/${credentials.account}/${n}-${i}.jpg`, data: await sceneJpeg(seed, 480, 360) });
      }
      n++;
      this.calls.push(await addImages(this.url, this.opts.service ?? 'mobile', credentials, files, this.opts.callBoundMs));
    }
  }
}

/** One `add` call with its outcome classified; never throws. */
export async function addImages(
  url: string,
  service: string,
  credentials: Credentials,
  files: Array<{ filepath: string; data: Buffer }>,
  boundMs: number,
): Promise<AddCall> {
  const form = new FormData();
  files.forEach((f, i) => form.append(`images[${i}]`, new Blob([f.data]), f.filepath));
  const paths = files.map((f) => f.filepath);
  const started = Date.now();
  const base = { account: credentials.account, paths, errors: [] as string[], acknowledged: [] as string[] };
  try {
    const res = await fetch(`${url}/${service}/${credentials.account}/rest/add/`, {
      method: 'POST',
      headers: { authorization: basicAuth(credentials) },
      body: form,
      signal: AbortSignal.timeout(boundMs),
    });
    const text = await res.text();
    const ms = Date.now() - started;
    let envelope: { status?: string; error?: string[] } | undefined;
    try {
      envelope = JSON.parse(text);
    } catch {
      return { ...base, httpStatus: res.status, ms, outcome: 'answered', detail: `not an envelope: ${text.slice(0, 200)}` };
    }
    const errors = envelope?.error ?? [];
    const acknowledged =
      envelope?.status === 'ok' ? paths : envelope?.status === 'warn' ? paths.filter((p) => !errors.some((e) => e.startsWith(`${p}:`))) : [];
    return { ...base, httpStatus: res.status, envelopeStatus: envelope?.status, errors, acknowledged, ms, outcome: 'answered' };
  } catch (error) {
    const ms = Date.now() - started;
    const name = (error as Error).name;
    const outcome = name === 'TimeoutError' || name === 'AbortError' ? 'hung' : 'connection-error';
    return { ...base, httpStatus: null, ms, outcome, detail: (error as Error).message };
  }
}

export function basicAuth(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.user}:${c.password}`).toString('base64')}`;
}

/** Calls that did not end the way the fault allows: an answer must be an envelope, and a failure must say why. */
export function unclearCalls(calls: readonly AddCall[]): AddCall[] {
  return calls.filter(
    (c) => c.outcome !== 'answered' || !['ok', 'warn', 'fail'].includes(c.envelopeStatus ?? '') || (c.envelopeStatus === 'fail' && c.errors.every((e) => e.trim() === '')),
  );
}

/** Error texts that name a host and port (a driver's `connect ECONNREFUSED 10.0.3.7:5432`): internals a caller must not see. */
export function leakedAddresses(calls: readonly AddCall[]): string[] {
  return calls.flatMap((c) => c.errors).filter((e) => /\b\d{1,3}(\.\d{1,3}){3}:\d+|ECONN|ETIMEDOUT|EHOSTUNREACH/.test(e));
}

/**
 * Images present although their call was answered with a failure that says nothing was changed: the answer and the
 * collection disagree, and a client that believed it would never learn its image is there.
 */
export function contradictedFailures(calls: readonly AddCall[], present: ReadonlySet<string>): string[] {
  return calls
    .filter((c) => c.envelopeStatus === 'fail' && c.errors.some((e) => /nothing was changed/i.test(e)))
    .flatMap((c) => c.paths.filter((p) => present.has(`${c.account}/${p}`)).map((p) => `${c.account}/${p}: ${c.errors[0]}`));
}

/** Images of the calls that were answered with a failure, yet are in the collection: the answer said less than was done. */
export function presentThoughFailed(calls: readonly AddCall[], present: ReadonlySet<string>): string[] {
  return calls
    .filter((c) => c.envelopeStatus === 'fail')
    .flatMap((c) => c.paths.filter((p) => present.has(`${c.account}/${p}`)).map((p) => `${c.account}/${p}: ${c.errors[0]}`));
}

export interface StoreAudit {
  rows: number;
  /** Image rows without their features, without the search words a searchable image of a matching service needs, or without a blob. */
  halfRows: string[];
  /** Blobs under `collections/` that no row points to. */
  orphanBlobs: string[];
  /** Staged uploads still in the store. */
  stagedBlobs: string[];
  /** account/filepath of every row. */
  present: Set<string>;
  /** account/filepath of the rows that are searchable and carry their search words. */
  searchable: Set<string>;
}

/** Reads every image row and every blob key of the system behind `config`. */
export async function auditStore(config: AppConfig): Promise<StoreAudit> {
  const infra = await openInfrastructure(config);
  try {
    const { rows } = await infra.db.query<{
      account: string;
      service: string;
      filepath: string;
      blob_key: string;
      norm_blob_key: string;
      searchable: boolean;
      has_features: boolean;
      has_words: boolean;
    }>(
      `SELECT a.name AS account, i.service, i.filepath, i.blob_key, i.norm_blob_key, i.searchable,
              f.image_pk IS NOT NULL AS has_features, w.image_pk IS NOT NULL AS has_words
         FROM images i JOIN accounts a ON a.id = i.account_id
         LEFT JOIN image_features f ON f.image_pk = i.id
         LEFT JOIN image_words w ON w.image_pk = i.id`,
    );
    const keys: string[] = [];
    for (const prefix of ['collections/', 'staging/']) for await (const blob of infra.blobs.list(prefix)) keys.push(blob.key);
    const keySet = new Set(keys);
    const referenced = new Set(rows.flatMap((r) => [r.blob_key, r.norm_blob_key]));
    const halfRows: string[] = [];
    for (const r of rows) {
      const name = `${r.account}/${r.service}/${r.filepath}`;
      if (!r.has_features) halfRows.push(`${name}: no features`);
      if (r.searchable && !r.has_words && r.service !== 'color') halfRows.push(`${name}: searchable without search words`);
      if (!keySet.has(r.blob_key)) halfRows.push(`${name}: original blob missing`);
      if (!keySet.has(r.norm_blob_key)) halfRows.push(`${name}: normalised blob missing`);
    }
    return {
      rows: rows.length,
      halfRows,
      orphanBlobs: keys.filter((k) => k.startsWith('collections/') && !referenced.has(k)),
      stagedBlobs: keys.filter((k) => k.startsWith('staging/')),
      present: new Set(rows.map((r) => `${r.account}/${r.filepath}`)),
      searchable: new Set(rows.filter((r) => r.searchable && r.has_words).map((r) => `${r.account}/${r.filepath}`)),
    };
  } finally {
    await infra.close();
  }
}

/** The ingest jobs BullMQ holds as active, read the way the gateway's queue sees them. */
export class IngestJobs {
  private readonly queue: Queue;

  constructor(config: AppConfig) {
    this.queue = new Queue(JobKind.Ingest, { connection: { url: config.redisUrl, maxRetriesPerRequest: null }, prefix: bullPrefix(config.redisPrefix) });
    this.queue.on('error', () => undefined);
  }

  /** The active jobs, apart from `exclude` (killed jobs BullMQ still shows as active until it notices). */
  async active(exclude: ReadonlySet<string> = new Set()): Promise<Job[]> {
    return (await this.queue.getActive()).filter((job) => !exclude.has(job.id!));
  }

  async stillActive(job: Job): Promise<boolean> {
    const now = await this.queue.getJob(job.id!);
    return (await now?.isActive()) === true && now?.processedOn === job.processedOn;
  }

  /**
   * Whether the system has dealt with job `id` since a kill at `killedAt`: taken again by a worker, back in the queue,
   * finished, or removed (a job no worker took in time fails and is removed).
   */
  async recovered(id: string, killedAt: number): Promise<boolean> {
    const job = await this.queue.getJob(id);
    if (!job) return true;
    return (job.processedOn ?? 0) > killedAt || (await job.getState()) !== 'active';
  }

  async idle(): Promise<boolean> {
    const counts = await this.queue.getJobCounts('active', 'waiting', 'prioritized', 'delayed');
    return Object.values(counts).every((n) => n === 0);
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/**
 * Watches killed jobs in the background and notes, for each, how long after the kill the system took it back (see
 * `IngestJobs.recovered`). Polls every 250 ms, so the figures are that precise.
 */
export class RecoveryWatch {
  private readonly pending = new Map<string, number>();
  readonly delays: number[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(private readonly jobs: IngestJobs) {
    this.loop = this.run();
  }

  watch(jobId: string, at: number): void {
    this.pending.set(jobId, at);
  }

  get outstanding(): number {
    return this.pending.size;
  }

  get killedJobs(): ReadonlySet<string> {
    return new Set(this.pending.keys());
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      for (const [id, at] of [...this.pending]) {
        if (await this.jobs.recovered(id, at).catch(() => false)) {
          this.delays.push(Date.now() - at);
          this.pending.delete(id);
        }
      }
      await sleep(250);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
