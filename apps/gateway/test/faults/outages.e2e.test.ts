import { describe, expect, it } from 'vitest';
import { MODES, startTestSystem, TestSystem } from '../harness';
import { freePort, killHard, serversEnv, startApp, waitFor } from '../processes';
import { AddLoad, contradictedFailures, addImages, presentThoughFailed, auditStore, FAULT_ACCOUNTS, FAULT_ACCOUNTS_ENV, IngestJobs, sleep, unclearCalls, leakedAddresses } from './fault-kit';
import { sceneJpeg } from '../images';
import { OwnPostgres, OwnRedis } from './own-servers';

const real = MODES.find((m) => m.name === 'real')!;
if (!real.enabled) console.warn(`outage fault suite skipped: ${real.skipReason}`);

/** No add may take longer than this, outages included: a call still open then counts as hung. */
const CALL_BOUND_MS = 90_000;
/** How long the server stays down. */
const OUTAGE_MS = 3_000;
/** After the server is back, a new add must succeed within this. */
const RECOVERY_BOUND_MS = 30_000;

/**
 * Runs an add load on `sys` with one worker, lets `outage` happen while jobs are queued and running, then measures
 * how long after `outage` returns (the server is back) a new add is acknowledged, and audits the store.
 */
async function underOutage(name: string, sys: TestSystem, outage: () => Promise<void>) {
  const jobs = new IngestJobs(sys.config);
  const worker = startApp('worker', { ...serversEnv(sys.config), METRICS_PORT: '0' });
  const load = new AddLoad(sys.url, { tag: name, callBoundMs: CALL_BOUND_MS, accounts: FAULT_ACCOUNTS.slice(0, 3) });
  try {
    await waitFor('the worker', () => worker.output().includes('worker ready'), 60_000);
    load.start();
    await waitFor('the load to be under way', () => load.acknowledged().length >= 6, 60_000, 50);
    await waitFor('an add running', async () => (await jobs.active()).length > 0, 30_000, 20);
    await outage();
    const back = Date.now();
    // Probes from an account of its own, so they do not queue behind the load's calls of the outage.
    const probe = FAULT_ACCOUNTS[FAULT_ACCOUNTS.length - 1];
    const probes = [];
    let recoveredMs: number | undefined;
    for (let n = 0; recoveredMs === undefined && Date.now() - back < RECOVERY_BOUND_MS; n++) {
      const call = await addImages(sys.url, 'mobile', probe, [{ filepath: `${name}/probe/${n}.jpg`, data: await sceneJpeg(90_000 + n, 480, 360) }], CALL_BOUND_MS);
      probes.push(call);
      if (call.envelopeStatus === 'ok') recoveredMs = Date.now() - back;
      else await sleep(250);
    }
    await sleep(2_000);
    const figures = await load.stop();
    await waitFor('the queue to drain', () => jobs.idle(), 60_000, 200);
    const audit = await auditStore(sys.config);
    const acknowledged = [...load.acknowledged(), ...probes.flatMap((c) => c.acknowledged.map((filepath) => ({ account: probe.account, filepath })))];
    const lost = acknowledged.filter((a) => !audit.present.has(`${a.account}/${a.filepath}`));
    const unsearchable = acknowledged.filter((a) => !audit.searchable.has(`${a.account}/${a.filepath}`));
    console.log(
      `[faults] ${name}: ${JSON.stringify({
        outageMs: OUTAGE_MS,
        ...figures,
        probes: probes.length,
        recoveredMs,
        lost: lost.length,
        unsearchable: unsearchable.length,
        rows: audit.rows,
        halfRows: audit.halfRows.length,
        orphanBlobs: audit.orphanBlobs.length,
        stagedLeft: audit.stagedBlobs.length,
        presentThoughFailed: presentThoughFailed([...load.calls, ...probes], audit.present).length,
      })}`,
    );
    const workerState = worker.child.exitCode === null && worker.child.signalCode === null ? 'running' : `exited (${worker.child.exitCode ?? worker.child.signalCode})`;
    expect(
      recoveredMs,
      `an add acknowledged within ${RECOVERY_BOUND_MS} ms of the server's return; probes: ${JSON.stringify(probes.slice(-3))}; ` +
        `the worker: ${workerState}, its last output: ${worker.output().slice(-2_000)}`,
    ).toBeDefined();
    expect(workerState, 'the worker lives through the outage: a lost server fails jobs, it does not kill the process').toBe('running');
    expect(unclearCalls([...load.calls, ...probes]), 'every call ended with an envelope that says what happened').toEqual([]);
    expect(leakedAddresses([...load.calls, ...probes]), 'no error text names an internal address').toEqual([]);
    expect(lost).toEqual([]);
    expect(contradictedFailures([...load.calls, ...probes], audit.present)).toEqual([]);
    expect(unsearchable).toEqual([]);
    expect(audit.halfRows).toEqual([]);
    expect(audit.orphanBlobs).toEqual([]);
    return { figures, audit, calls: [...load.calls, ...probes] };
  } finally {
    await load.stop();
    await killHard(worker.child);
    await jobs.close();
  }
}

describe.skipIf(!real.enabled)('faults: Redis and Postgres go down in the middle of adds and come back (real mode, servers of their own)', () => {
  it('Redis killed (no persistence: every queued job is lost) and restarted on the same port', async () => {
    const redis = new OwnRedis(await freePort());
    await redis.start();
    let sys: TestSystem | undefined;
    try {
      sys = await startTestSystem('real', { RUN_WORKERS: 'false', ACCOUNTS: FAULT_ACCOUNTS_ENV, REDIS_URL: redis.url });
      await underOutage('redis restart', sys, async () => {
        await redis.kill();
        await sleep(OUTAGE_MS);
        await redis.start();
      });
    } finally {
      await sys?.destroy();
      await redis.kill();
    }
  }, 180_000);

  it('Postgres stopped immediately (connections cut, crash recovery) and restarted', async () => {
    const pg = await OwnPostgres.create(await freePort());
    let sys: TestSystem | undefined;
    try {
      await pg.start();
      sys = await startTestSystem('real', { RUN_WORKERS: 'false', ACCOUNTS: FAULT_ACCOUNTS_ENV, DATABASE_URL: pg.url });
      const { audit, calls } = await underOutage('postgres restart', sys, async () => {
        await pg.crash();
        await sleep(OUTAGE_MS);
        await pg.start();
      });
      // Redis was not touched: every job ended on a worker, which deletes its staged uploads whatever the outcome.
      expect(audit.stagedBlobs).toEqual([]);
      // Every job ran to its end on a living worker, so its answer can say exactly what it added.
      expect(presentThoughFailed(calls, audit.present)).toEqual([]);
      // A database that cannot be reached is an outage to retry, not a fault of Loupe's: 503 with Retry-After.
      const failed = calls.filter((c) => c.envelopeStatus === 'fail');
      expect(failed.length, 'some adds fell into the outage').toBeGreaterThan(0);
      expect(failed.filter((c) => c.httpStatus !== 503).map((c) => `${c.httpStatus}: ${c.errors[0]}`)).toEqual([]);
    } finally {
      await sys?.destroy();
      await pg.destroy();
    }
  }, 180_000);
});
