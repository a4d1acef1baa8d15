import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { bandsPng } from './color-images';
import { sceneJpeg } from './images';

/** The file name of issue 12: 60 characters, 56 of them `a`. */
const LONG_NAME = `${'a'.repeat(56)}.jpg`;
/**
 * 14 `*a` and `*b` (29 characters): as a backtracking regular expression against LONG_NAME it kept the gateway's event
 * loop busy for more than 90 s, so that every account's calls waited.
 */
const HOSTILE_NAME_FILTER = `${'*a'.repeat(14)}*b`;
/** The same shape across folders: `**` crosses `/`, and the folder below is 40 one-letter folders deep. */
const HOSTILE_PATH_FILTER = `${'**a'.repeat(14)}**b`;
const DEEP_FOLDER = Array.from({ length: 40 }, () => 'a').join('/');
const BOB = `Basic ${Buffer.from('bob:builder').toString('base64')}`;

/** Runs `work` and returns its answer with how long it took, in ms. */
async function timed<T>(work: Promise<T>): Promise<{ answer: T; ms: number }> {
  const start = performance.now();
  const answer = await work;
  return { answer, ms: performance.now() - start };
}

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`name and path filters against hostile globs (${mode.name})`, () => {
    let sys: TestSystem;

    beforeAll(async () => {
      sys = await startTestSystem(mode.name);
      const scene = await sceneJpeg(4242, 800, 600);
      const add = await call(sys, 'match', 'add', {
        form: formWith([
          { field: 'images[0]', data: scene, filename: LONG_NAME },
          { field: 'images[1]', data: scene, filename: `${DEEP_FOLDER}/${LONG_NAME}` },
        ]),
      });
      expect(add.json.status).toBe('ok');
      const color = await call(sys, 'color', 'add', { form: formWith([{ field: 'image', data: await bandsPng([{ hex: '#2050c0', percent: 100 }]), filename: `${DEEP_FOLDER}/${LONG_NAME}` }]) });
      expect(color.json.status).toBe('ok');
    }, 180_000);
    afterAll(async () => {
      await sys?.destroy();
    });

    it('answers a hostile name_filter search promptly and correctly while another account is served', async () => {
      const search = timed(call(sys, 'match', 'search', { query: { filepath: LONG_NAME, name_filter: HOSTILE_NAME_FILTER } }));
      const ping = timed(call(sys, 'match', 'ping', { account: 'beta', auth: BOB }));
      const [searched, pinged] = await Promise.all([search, ping]);
      expect(pinged.answer.json.status).toBe('ok');
      expect(searched.answer.json).toMatchObject({ status: 'ok', result: [], error: [] });
      // Bounds for a loaded CI machine; the regular expression took more than 90 s (and the ping as long).
      expect(pinged.ms).toBeLessThan(15_000);
      expect(searched.ms).toBeLessThan(30_000);

      // The filters still select: the same name with a glob that matches it, and the folder by path_filter.
      const matching = await call(sys, 'match', 'search', { query: { filepath: LONG_NAME, name_filter: `${'*a'.repeat(14)}*.jpg` } });
      expect(matching.json.result.map((r: { filepath: string }) => r.filepath).sort()).toEqual([`${DEEP_FOLDER}/${LONG_NAME}`, LONG_NAME]);
      const hostilePath = await timed(call(sys, 'match', 'search', { query: { filepath: LONG_NAME, path_filter: HOSTILE_PATH_FILTER } }));
      expect(hostilePath.answer.json).toMatchObject({ status: 'ok', result: [] });
      expect(hostilePath.ms).toBeLessThan(30_000);
      const deep = await call(sys, 'match', 'search', { query: { filepath: LONG_NAME, path_filter: `${'**a'.repeat(14)}**` } });
      expect(deep.json.result.map((r: { filepath: string }) => r.filepath)).toEqual([`${DEEP_FOLDER}/${LONG_NAME}`]);
    });

    it('filters color searches over the whole collection the same way', async () => {
      const hostile = await timed(call(sys, 'color', 'color_search', { query: { 'colors[0]': '2050c0', name_filter: HOSTILE_NAME_FILTER, path_filter: HOSTILE_PATH_FILTER } }));
      expect(hostile.answer.json).toMatchObject({ status: 'ok', result: [] });
      expect(hostile.ms).toBeLessThan(30_000);
      const found = await call(sys, 'color', 'color_search', { query: { 'colors[0]': '2050c0', name_filter: `${'*a'.repeat(14)}*.jpg`, path_filter: `${'**a'.repeat(14)}**` } });
      expect(found.json.result.map((r: { filepath: string }) => r.filepath)).toEqual([`${DEEP_FOLDER}/${LONG_NAME}`]);
    });

    it('refuses a glob over 1,000 characters or with a backwards range, with the reason, on every search', async () => {
      const long = '*'.repeat(1001);
      for (const [service, operation, query] of [
        ['match', 'search', { filepath: LONG_NAME }],
        ['mobile', 'search', { filepath: LONG_NAME }],
        ['wine', 'search', { filepath: LONG_NAME }],
        ['color', 'color_search', { 'colors[0]': '2050c0' }],
      ] as const) {
        const tooLong = await call(sys, service, operation, { query: { ...query, name_filter: long } });
        expect([service, tooLong.status, tooLong.json]).toMatchObject([service, 200, { status: 'fail', error: ['name_filter: the value is longer than 1000 characters.'] }]);
        const backwards = await call(sys, service, operation, { query: { ...query, path_filter: 'catalog/[z-a]' } });
        expect([service, backwards.json]).toMatchObject([
          service,
          { status: 'fail', error: ['path_filter: the set "[z-a]" has the range z-a, which runs backwards; write ranges low to high, like [a-z].'] },
        ]);
      }
    });
  });
}
