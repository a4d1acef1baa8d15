import { LabelSpec, wineBottlePhoto, wineLabelJpeg } from '@loupe/ocr/src/testing/wine-photos';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bandsPng, framedPng } from './color-images';
import { ACCOUNT, AUTH, call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { mailBoundary, multipartBody, pieces, rawRequest } from './raw-http';

/*
 * The collection services as the official collection clients call them (issue 14). The Node client
 * `tineye-services` cannot be a dev dependency here: the only registry this build can reach answers 404 for it, and
 * nothing else may be fetched. So its calls, and those of the Python `tineyeservices` client, are sent as those
 * clients send them (docs/protocol.md §2, §6):
 * - MulticolorEngine.add: `POST /color/<account>/rest/add/`, multipart `image` + `filepath` or `url` + `filepath`,
 *   option `ignore_background`; an existing path is replaced, as with update;
 * - WineEngine.compare (Python, inherited from MatchEngine): `image1`/`image2` uploads or `url1`/`url2`, `min_score`,
 *   `check_horizontal_flip`, `compute_enhanced_score`, `generate_overlay`, answered like match compare;
 * - Python's multipart writer: `boundary================<digits>==`, unquoted.
 * Every test reads the answer (status, result, stats), in JSON and in XML where the clients ask for it.
 */

const TEAL = '1b8a8c';
const ORANGE = 'f28c28';
const WHITE = 'ffffff';
const PURPLE = '6a2c91';
const keys = (o: Record<string, unknown>) => Object.keys(o);

const RIVEL: LabelSpec = {
  producer: 'Domaine Rivel', region: 'Pauillac', vintage: 2015, variety: 'Cabernet Sauvignon', country: 'France', colorText: 'Red Wine', extras: ['Grand Vin de Bordeaux'],
};
const PRADERA: LabelSpec = {
  producer: 'Bodegas Pradera', region: 'Rioja', vintage: 2012, variety: 'Tempranillo', country: 'Spain', colorText: 'Vino Tinto', extras: ['Reserva'], layout: 2, accent: '#5b1f3a', paper: '#efe6cf',
};

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`official collection clients (${mode.name})`, () => {
    let sys: TestSystem;
    let port: number;
    let server: http.Server;
    let serverUrl: string;
    const served = new Map<string, Buffer>();

    const paletteOf = async (filepath: string) => {
      const res = await call(sys, 'color', 'extract_collection_colors', { query: { 'filepaths[0]': filepath, color_format: 'hex' } });
      return res.json.result.map((c: { color: string }) => c.color);
    };

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        const data = served.get(req.url ?? '');
        if (data) res.writeHead(200, { 'content-type': req.url!.endsWith('.png') ? 'image/png' : 'image/jpeg' }).end(data);
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      sys = await startTestSystem(mode.name, { ALLOW_PRIVATE_URLS: 'true' });
      port = Number(new URL(sys.url).port);
    }, 240_000);

    afterAll(async () => {
      await sys?.destroy();
      await new Promise((r) => server?.close(r));
    });

    describe('MulticolorEngine.add', () => {
      it('adds an upload (image + filepath) with the stats of add, ignoring the background when asked', async () => {
        const framed = await framedPng(`#${TEAL}`, `#${WHITE}`, 0.3);
        const res = await call(sys, 'color', 'add', { form: formWith([{ field: 'image', data: framed, filename: 'local/name.png' }], { filepath: 'swatches/teal.png', ignore_background: 'true' }) });
        expect(res.status).toBe(200);
        expect(res.json).toMatchObject({ method: 'add', status: 'ok', error: [], result: [] });
        expect(keys(res.json.stats)).toEqual(['time_download', 'time_resize', 'time_add', 'time_total']);
        expect(await paletteOf('swatches/teal.png')).toEqual([TEAL]);
        const found = await call(sys, 'color', 'color_search', { query: { 'colors[0]': TEAL } });
        expect(found.json.result[0]).toMatchObject({ filepath: 'swatches/teal.png' });
      });

      it('adds by url + filepath, and answers in XML when asked', async () => {
        served.set('/orange.png', await bandsPng([{ hex: ORANGE, percent: 100 }]));
        const res = await call(sys, 'color', 'add', { form: formWith([], { url: `${serverUrl}/orange.png`, filepath: 'swatches/orange.png', format: 'xml' }) });
        expect(res.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<data><method>add<\/method><status>ok<\/status><error\/><result\/><stats><time_download>/);
        expect(await paletteOf('swatches/orange.png')).toEqual([ORANGE]);
      });

      it('replaces an existing path, as update does', async () => {
        const before = (await call(sys, 'color', 'count')).json.result[0];
        const res = await call(sys, 'color', 'add', { form: formWith([{ field: 'image', data: await bandsPng([{ hex: ORANGE, percent: 100 }]), filename: 'x.png' }], { filepath: 'swatches/teal.png' }) });
        expect(res.json).toMatchObject({ status: 'ok', error: [] });
        expect((await call(sys, 'color', 'count')).json.result[0]).toBe(before);
        expect(await paletteOf('swatches/teal.png')).toEqual([ORANGE]);
      });
    });

    describe('color_search without min_score', () => {
      it('leaves out unrelated palettes (score below the default floor of 15), which min_score=0 still lists', async () => {
        await call(sys, 'color', 'add', { form: formWith([{ field: 'image', data: await bandsPng([{ hex: PURPLE, percent: 100 }]), filename: 'p.png' }], { filepath: 'noise/purple.png' }) });
        const teal = await call(sys, 'color', 'color_search', { query: { 'colors[0]': TEAL } });
        expect(teal.json.status).toBe('ok');
        const paths = teal.json.result.map((h: { filepath: string }) => h.filepath);
        expect(paths).not.toContain('noise/purple.png');
        expect(teal.json.result.every((h: { score: number }) => h.score >= 15)).toBe(true);
        const everything = await call(sys, 'color', 'color_search', { query: { 'colors[0]': TEAL, min_score: '0' } });
        const purple = everything.json.result.find((h: { filepath: string }) => h.filepath === 'noise/purple.png');
        expect(purple.score).toBeLessThan(15);
      });
    });

    describe('WineEngine.compare (Python client)', () => {
      let label: Buffer;
      beforeAll(async () => {
        label = await wineLabelJpeg(RIVEL);
      }, 60_000);

      it('compares two uploads: a bottle photographed against its label matches, another label does not', async () => {
        const photo = await wineBottlePhoto(RIVEL, { seed: 5, perspective: 0.03, curvature: 0.35, blur: 0.8, glare: 0.3, jpegQuality: 75 });
        const fields = { min_score: '0', check_horizontal_flip: 'false', compute_enhanced_score: 'true', generate_overlay: 'false' };
        const same = await call(sys, 'wine', 'compare', { form: formWith([{ field: 'image1', data: photo.jpeg, filename: 'bottle.jpg' }, { field: 'image2', data: label, filename: 'label.jpg' }], fields) });
        expect(same.status).toBe(200);
        expect(same.json).toMatchObject({ method: 'compare', status: 'ok', error: [], query_image: { filepath: 'bottle.jpg' } });
        expect(same.json.result).toHaveLength(1);
        expect(same.json.result[0]).toMatchObject({ filepath: 'label.jpg', score: expect.any(Number), score_enhanced: expect.any(Number) });
        expect(same.json.result[0].score).toBeGreaterThan(20);
        expect(keys(same.json.stats)).toEqual(['time_download', 'time_resize', 'time_compare', 'time_total']);
        const other = await call(sys, 'wine', 'compare', { form: formWith([{ field: 'image1', data: photo.jpeg, filename: 'bottle.jpg' }, { field: 'image2', data: await wineLabelJpeg(PRADERA), filename: 'other.jpg' }], fields) });
        expect(other.json).toMatchObject({ status: 'ok', result: [] });
      }, 120_000);

      it('compares two URLs, in XML', async () => {
        served.set('/label.jpg', label);
        served.set('/smaller.jpg', await sharp(label).resize(420).jpeg({ quality: 80 }).toBuffer());
        const res = await call(sys, 'wine', 'compare', { form: formWith([], { url1: `${serverUrl}/smaller.jpg`, url2: `${serverUrl}/label.jpg`, format: 'xml' }) });
        expect(res.text).toMatch(/<method>compare<\/method><status>ok<\/status><error\/><result><item><filepath>[^<]*label\.jpg<\/filepath><score>/);
      }, 120_000);
    });

    describe('request forms on a raw socket', () => {
      const auth = { authorization: AUTH };
      const countPath = `/color/${ACCOUNT}/rest/count/`;

      it('origin-form and absolute-form targets, with and without the trailing slash', async () => {
        for (const target of [countPath, countPath.slice(0, -1), `http://127.0.0.1:${port}${countPath}`, `http://127.0.0.1:${port}${countPath.slice(0, -1)}?format=json`]) {
          const res = await rawRequest(port, { method: 'GET', target, headers: auth });
          expect({ target, status: res.status, answer: res.json }).toMatchObject({ target, status: 200, answer: { method: 'count', status: 'ok', result: [expect.any(Number)] } });
        }
      });

      it('a mail-style unquoted boundary, a quoted one, and a chunked body with boundaries cut across chunks', async () => {
        const png = await bandsPng([{ hex: TEAL, percent: 60 }, { hex: ORANGE, percent: 40 }]);
        const sends = [
          { boundary: mailBoundary(), header: (b: string) => `multipart/form-data; boundary=${b}`, chunked: false, filepath: 'forms/mail.png' },
          { boundary: 'quoted boundary=with=equals', header: (b: string) => `multipart/form-data; boundary="${b}"`, chunked: false, filepath: 'forms/quoted.png' },
          { boundary: mailBoundary(), header: (b: string) => `multipart/form-data; boundary=${b}`, chunked: true, filepath: 'forms/chunked.png' },
        ];
        for (const send of sends) {
          const body = multipartBody(send.boundary, [['filepath', send.filepath]], [{ field: 'image', filename: 'upload.png', data: png, type: 'image/png' }]);
          const res = await rawRequest(port, {
            method: 'POST',
            target: `/color/${ACCOUNT}/rest/add/`,
            headers: { ...auth, 'content-type': send.header(send.boundary) },
            ...(send.chunked ? { chunks: pieces(body, 333) } : { body }),
          });
          expect({ send: send.filepath, answer: res.json }).toMatchObject({ send: send.filepath, answer: { status: 'ok', error: [] } });
          expect((await paletteOf(send.filepath)).sort()).toEqual([ORANGE, TEAL].sort());
        }
      });

      it('Expect: 100-continue, answered with 100 before the body is read', async () => {
        const boundary = mailBoundary();
        const body = multipartBody(boundary, [['filepath', 'forms/continue.png']], [{ field: 'image', filename: 'c.png', data: await bandsPng([{ hex: ORANGE, percent: 100 }]), type: 'image/png' }]);
        const res = await rawRequest(
          port,
          { method: 'POST', target: `http://127.0.0.1:${port}/color/${ACCOUNT}/rest/add`, headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, body, expectContinue: true },
          { continueWaitMs: 30_000 },
        );
        expect(res.interim).toEqual([100]);
        expect(res.json).toMatchObject({ method: 'add', status: 'ok' });
        expect(await paletteOf('forms/continue.png')).toEqual([ORANGE]);
      });
    });
  });
}
