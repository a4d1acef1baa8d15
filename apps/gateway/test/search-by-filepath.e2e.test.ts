import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';

/**
 * docs/protocol.md §7: a search by a collection `filepath` lists that image itself first. An identical copy stored
 * under another path scores the same (100), and ties were ordered by path, so a copy whose path sorts first came first.
 */
const QUERIED = 'zoo/original.jpg';
const COPIES = ['art/copy.jpg', 'zoo/copy.jpg'];
const paths = (res: { json: { result: Array<{ filepath: string }> } }) => res.json.result.map((r) => r.filepath);

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`search by a collection filepath (${mode.name})`, () => {
    let sys: TestSystem;

    beforeAll(async () => {
      sys = await startTestSystem(mode.name);
      const scene = await sceneJpeg(7070, 800, 600);
      const other = await sceneJpeg(7071, 800, 600);
      // The queried image is added between its copies, so neither path order nor insertion order puts it first.
      const files = [
        { field: 'images[0]', data: scene, filename: COPIES[0] },
        { field: 'images[1]', data: scene, filename: QUERIED },
        { field: 'images[2]', data: scene, filename: COPIES[1] },
        { field: 'images[3]', data: other, filename: 'art/other.jpg' },
      ];
      for (const service of ['match', 'mobile']) expect((await call(sys, service, 'add', { form: formWith(files) })).json.status).toBe('ok');
    }, 180_000);
    afterAll(async () => {
      await sys?.destroy();
    });

    it('returns the queried image first, ahead of identical copies with the same score', async () => {
      for (const service of ['match', 'mobile']) {
        const res = await call(sys, service, 'search', { query: { filepath: QUERIED } });
        expect([service, res.json.status, paths(res)]).toEqual([service, 'ok', [QUERIED, ...COPIES]]);
        expect(res.json.result[1].score).toBe(res.json.result[0].score);
        expect(res.json.query_image).toEqual({ filepath: QUERIED });
      }
    });

    it('keeps it first on a page of one and skips it with offset 1', async () => {
      expect(paths(await call(sys, 'match', 'search', { query: { filepath: QUERIED, limit: '1' } }))).toEqual([QUERIED]);
      expect(paths(await call(sys, 'match', 'search', { query: { filepath: QUERIED, offset: '1' } }))).toEqual(COPIES);
    });

    it('leaves it out when a filter excludes it, like any other image', async () => {
      expect(paths(await call(sys, 'match', 'search', { query: { filepath: QUERIED, name_filter: 'copy.jpg' } }))).toEqual(COPIES);
    });
  });
}
