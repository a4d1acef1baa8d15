import type { JobContext } from '@loupe/queue';
import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics';
import { instrumentProcessors } from './observability';

/** A logger whose JSON lines are collected in `lines`. */
function collectingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}

const ctx = (kind: string): JobContext => ({ kind, group: 'acme', requestId: 'req-1', attempt: 1 });

describe('instrumentProcessors', () => {
  it('logs and measures the steps a job reports, and only those', async () => {
    const metrics = new Metrics();
    const { log, lines } = collectingLogger();
    const processors = instrumentProcessors(
      {
        search: async () => ({ items: [], steps: { query: 40.2, vote: 61.5, dense: 12 } }),
        delete: async () => ({ deleted: 1 }),
      },
      metrics,
      log,
    );
    await processors.search({}, ctx('search'));
    await processors.delete({}, ctx('delete'));
    expect(lines.find((l) => l.kind === 'search')).toMatchObject({ msg: 'job done', requestId: 'req-1', steps: { query: 40.2, vote: 61.5, dense: 12 } });
    expect(lines.find((l) => l.kind === 'delete')).not.toHaveProperty('steps');
    const text = await metrics.registry.metrics();
    expect(text).toContain('loupe_job_step_duration_seconds_count{kind="search",step="vote"} 1');
    expect(text).toContain('loupe_job_step_duration_seconds_sum{kind="search",step="vote"} 0.0615');
    expect(text).not.toMatch(/loupe_job_step_duration_seconds_count\{kind="delete"/);
  });
});
