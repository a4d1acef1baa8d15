import type { BlobInfo } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from '../src/bootstrap';
import { call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';

const real = MODES.find((m) => m.name === 'real')!;

async function staged(sys: TestSystem): Promise<BlobInfo[]> {
  const blobs: BlobInfo[] = [];
  for await (const blob of sys.gateway.infra.blobs.list('staging/')) blobs.push(blob);
  return blobs;
}

describe.skipIf(!real.enabled)('real mode with no worker running', () => {
  let sys: TestSystem;
  beforeAll(async () => {
    // A gateway without workers (RUN_WORKERS=false), as when every worker process is down.
    sys = await startTestSystem('real', { RUN_WORKERS: 'false', QUEUE_PICKUP_TIMEOUT_MS: '1000' });
  });
  afterAll(() => sys?.destroy());

  it('answers an add with a fail envelope once the pickup deadline passes, keeps nothing, and never adds it later', async () => {
    const form = formWith([{ field: 'image', data: await sceneJpeg(7), filename: 'nobody/took.jpg' }]);
    const startedAt = Date.now();
    const res = await call(sys, 'mobile', 'add', { form });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'fail', error: ['No worker took the job within 1 s; nothing was changed.'], result: [] });
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    expect(await staged(sys)).toEqual([]);

    // Workers come back: the given-up add must not run then.
    const withWorkers = await startGateway({ ...sys.config, port: 0, runWorkers: true }, { host: '127.0.0.1' });
    try {
      expect((await call(withWorkers, 'mobile', 'ping')).json.status).toBe('ok');
      const later = await call(withWorkers, 'mobile', 'add', { form: formWith([{ field: 'image', data: await sceneJpeg(8), filename: 'later.jpg' }]) });
      expect(later.json.status).toBe('ok');
      expect((await call(withWorkers, 'mobile', 'list', { query: { limit: '0' } })).json.result).toEqual(['later.jpg']);
    } finally {
      await withWorkers.close();
    }
  }, 60_000);
});
