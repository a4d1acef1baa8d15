import { describe, expect, it } from 'vitest';
import { envelopeBody } from '../bodies';
import { MODES, startTestSystem } from '../harness';
import { killHard, serversEnv, startApp, waitFor } from '../processes';
import { AddLoad, contradictedFailures, auditStore, FAULT_ACCOUNTS, FAULT_ACCOUNTS_ENV, IngestJobs, RecoveryWatch, sleep, unclearCalls } from './fault-kit';

const real = MODES.find((m) => m.name === 'real')!;
if (!real.enabled) console.warn(`worker-kill fault suite skipped: ${real.skipReason}`);

const ROUNDS = 20;
/** No add may take longer than this, kills included: a call still open then counts as hung. */
const CALL_BOUND_MS = 90_000;
/** A dead worker's job must be back in the queue (or taken again) within this (issue 12). */
const RETRY_BOUND_MS = 15_000;

/**
 * The whole run's time limit. Each of the 21 workers started pays its compute threads' start (OpenCV loaded in each
 * thread, 2-3 s of CPU) before its first add, and the suite shares 2 cores with the rest of CI: 240 s was once too
 * short on a loaded machine.
 */
const RUN_BOUND_MS = 480_000;

describe.skipIf(!real.enabled)('faults: worker processes killed with SIGKILL in the middle of adds (real mode)', () => {
  it(`${ROUNDS} kills under a steady add load lose no acknowledged image and leave no half row or orphan blob`, async () => {
    const sys = await startTestSystem('real', { RUN_WORKERS: 'false', ACCOUNTS: FAULT_ACCOUNTS_ENV });
    const jobs = new IngestJobs(sys.config);
    const recovery = new RecoveryWatch(jobs);
    // The workers run with the shipped stall settings (and one job at a time, as shipped): the retry bound is theirs.
    const workerEnv = { ...serversEnv(sys.config), METRICS_PORT: '0' };
    const startWorker = async (what: string) => {
      const worker = startApp('worker', workerEnv);
      await waitFor(what, () => worker.output().includes('worker ready'), 60_000);
      return worker;
    };
    const load = new AddLoad(sys.url, { tag: 'kill', callBoundMs: CALL_BOUND_MS });
    // Two workers, killed in turn: the other one keeps the queue moving (and takes the dead one's job back) while the
    // killed one restarts, as in a deployment with several workers.
    const workers = await Promise.all([startWorker('worker 1'), startWorker('worker 2')]);
    try {
      load.start();
      for (let round = 0; round < ROUNDS; round++) {
        const slot = round % 2;
        const victim = workers[slot];
        // Both workers busy with jobs that never stalled: the victim is surely in the middle of an add, and killing it
        // costs its job the one restart it has, not its last (a job killed twice fails by design, maxStalledCount).
        await waitFor(
          `round ${round + 1}: both workers in the middle of an add`,
          async () => {
            const busy = await jobs.active(recovery.killedJobs);
            if (busy.length < 2 || busy.some((job) => (job.stalledCounter ?? 0) > 0)) return false;
            // Anywhere from decoding to the commit: a job of 1-3 images takes about a second here.
            await sleep(Math.random() * 600);
            const still = await Promise.all(busy.map((job) => jobs.stillActive(job)));
            if (still.includes(false)) return false;
            await killHard(victim.child);
            const at = Date.now();
            for (const job of busy) recovery.watch(job.id!, at);
            return true;
          },
          60_000,
          20,
        );
        workers[slot] = await startWorker(`worker ${round + 3}`);
      }
      await waitFor('every killed job to be taken back', () => recovery.outstanding === 0, 60_000, 250);
      const figures = await load.stop();
      await waitFor('the queue to drain', () => jobs.idle(), 60_000, 200);
      const audit = await auditStore(sys.config);

      const acknowledged = load.acknowledged();
      const lost = acknowledged.filter((a) => !audit.present.has(`${a.account}/${a.filepath}`));
      const unsearchable = acknowledged.filter((a) => !audit.searchable.has(`${a.account}/${a.filepath}`));
      console.log(
        `[faults] worker kill -9: ${JSON.stringify({
          rounds: ROUNDS,
          ...figures,
          lost: lost.length,
          unsearchable: unsearchable.length,
          rows: audit.rows,
          halfRows: audit.halfRows.length,
          orphanBlobs: audit.orphanBlobs.length,
          stagedLeft: audit.stagedBlobs.length,
          maxRetryAfterKillMs: Math.max(...recovery.delays),
        })}`,
      );

      expect(figures.acknowledged, 'the load made progress between the kills').toBeGreaterThan(ROUNDS);
      expect(unclearCalls(load.calls), 'every call ended with an envelope that says what happened').toEqual([]);
      expect(lost).toEqual([]);
      expect(contradictedFailures(load.calls, audit.present)).toEqual([]);
      expect(unsearchable).toEqual([]);
      expect(audit.halfRows).toEqual([]);
      expect(audit.orphanBlobs).toEqual([]);
      expect(audit.stagedBlobs).toEqual([]);
      expect(Math.max(...recovery.delays)).toBeLessThan(RETRY_BOUND_MS);
      // count agrees with the rows of each account: nothing half-added is counted or hidden.
      for (const { account } of FAULT_ACCOUNTS) {
        const rows = [...audit.present].filter((p) => p.startsWith(`${account}/`)).length;
        const count = await fetch(`${sys.url}/mobile/${account}/rest/count/`, { headers: { authorization: load.authOf(account) } }).then(envelopeBody);
        expect(count.result, `${account} count`).toEqual([rows]);
      }
    } finally {
      await load.stop();
      await recovery.stop();
      await Promise.all(workers.map((w) => killHard(w.child)));
      await jobs.close();
      await sys.destroy();
    }
  }, RUN_BOUND_MS);
});
