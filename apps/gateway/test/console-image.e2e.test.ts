import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';

/** GET /<service>/<account>/rest/image/<filepath>: the read-only route the web console draws match rectangles on. */
for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`collection image route (${mode.name})`, () => {
    let sys: TestSystem;

    beforeAll(async () => {
      sys = await startTestSystem(mode.name);
      const form = formWith([{ field: 'image', data: await sceneJpeg(11, 1200, 900), filename: 'x.jpg' }], { filepath: 'prints/2026 spring/poster #1.jpg' });
      expect((await call(sys, 'match', 'add', { form })).json.status).toBe('ok');
    }, 180_000);
    afterAll(async () => {
      await sys?.destroy();
    });

    const get = (path: string, auth: string | null = AUTH) => fetch(`${sys.url}${path}`, { headers: auth ? { authorization: auth } : {} });

    it('serves the normalised copy of a collection image, folders and encoded names kept', async () => {
      const res = await get(`/match/acme/rest/image/prints/2026%20spring/poster%20%231.jpg`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
      // The match service normalises the 1200×900 original to 800×600, then crops solid borders (a few px here).
      expect(meta.width).toBeGreaterThan(700);
      expect(meta.width).toBeLessThanOrEqual(800);
      expect(meta.height).toBeGreaterThan(500);
      expect(meta.height).toBeLessThanOrEqual(600);
    });

    it('asks for credentials, refuses another account, and answers 404 for unknown paths and services', async () => {
      const path = `/match/acme/rest/image/prints/2026%20spring/poster%20%231.jpg`;
      const anonymous = await get(path, null);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
      expect((await get(path, `Basic ${Buffer.from('bob:builder').toString('base64')}`)).status).toBe(401);
      expect((await get(`/match/beta/rest/image/prints/2026%20spring/poster%20%231.jpg`, `Basic ${Buffer.from('bob:builder').toString('base64')}`)).status).toBe(404);
      expect((await get('/match/acme/rest/image/prints/nope.jpg')).status).toBe(404);
      expect((await get('/mobile/acme/rest/image/prints/2026%20spring/poster%20%231.jpg')).status).toBe(404);
      expect((await get('/nosuch/acme/rest/image/a.jpg')).status).toBe(404);
    });

    it('serves the console page and its modules, and nothing outside its folder', async () => {
      const page = await fetch(`${sys.url}/console/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script type="module" src="/console/app.js">');
      expect((await fetch(`${sys.url}/console/app.js`)).headers.get('content-type')).toContain('text/javascript');
      expect((await fetch(`${sys.url}/console/..%2fconsole.module.ts`)).status).toBe(404);
      expect((await fetch(`${sys.url}/console/console.module.ts`)).status).toBe(404);
    });
  });
}
