import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeBody } from './bodies';
import { ACCOUNT, AUTH, call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { animatedGif, bmp24, flatJpeg, scene, sceneJpeg } from './images';

const today = () => new Date().toISOString().slice(0, 10);

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`mobile service over HTTP (${mode.name})`, () => {
    let sys: TestSystem;
    beforeAll(async () => {
      sys = await startTestSystem(mode.name);
    });
    afterAll(async () => {
      await sys?.destroy();
    });

    it('answers ping with ok and an empty result, in JSON and XML', async () => {
      const json = await call(sys, 'mobile', 'ping');
      expect(json.status).toBe(200);
      expect(json.json).toMatchObject({ method: 'ping', status: 'ok', error: [], result: [] });
      expect(typeof json.json.stats.time_total).toBe('number');
      const xml = await call(sys, 'mobile', 'ping', { query: { format: 'xml' } });
      expect(xml.headers.get('content-type')).toMatch(/xml/);
      expect(xml.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<data><method>ping<\/method><status>ok<\/status><error\/><result\/><stats>/);
    });

    it('refuses missing and wrong credentials and other accounts with 401 and a Basic challenge', async () => {
      const none = await call(sys, 'mobile', 'ping', { auth: null });
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Basic/);
      const wrong = await call(sys, 'mobile', 'ping', { auth: `Basic ${Buffer.from('alice:nope').toString('base64')}` });
      expect(wrong.status).toBe(401);
      // alice belongs to acme, not beta; the answer reveals nothing about beta.
      const other = await call(sys, 'mobile', 'ping', { account: 'beta' });
      expect(other.status).toBe(401);
      expect(other.json.error).toEqual(none.json.error);
      const bob = await call(sys, 'mobile', 'ping', { account: 'beta', auth: `Basic ${Buffer.from('bob:builder').toString('base64')}` });
      expect(bob.status).toBe(200);
    });

    it('answers 404 for an unknown operation or service', async () => {
      expect((await call(sys, 'mobile', 'frobnicate')).status).toBe(404);
      expect((await call(sys, 'nosuch', 'ping')).status).toBe(404);
    });

    it('adds an upload under its multipart file name and reports it in list, count, get_info and get_metadata', async () => {
      const add = await call(sys, 'mobile', 'add', {
        form: formWith([{ field: 'image', data: await sceneJpeg(1), filename: 'prints/one.jpg' }], { image_id: 'sku 1-A' }),
      });
      expect(add.json).toMatchObject({ method: 'add', status: 'ok', error: [], result: [] });
      expect(Object.keys(add.json.stats).sort()).toEqual(['time_add', 'time_download', 'time_resize', 'time_total']);
      expect(add.json.stats.time_add).toBeGreaterThan(0);

      expect((await call(sys, 'mobile', 'list')).json.result).toEqual(['prints/one.jpg']);
      expect((await call(sys, 'mobile', 'count')).json.result).toEqual([1]);
      const info = await call(sys, 'mobile', 'get_info', { query: { filepath: 'prints/one.jpg' } });
      expect(info.json.result).toEqual([
        { filepath: 'prints/one.jpg', width: 640, height: 480, fingerprint: expect.any(Number), date: today(), status: 'healthy' },
      ]);
      expect(info.json.result[0].fingerprint).toBeGreaterThan(30);
      expect(info.json.result[0].fingerprint).toBeLessThanOrEqual(100);
      const meta = await call(sys, 'mobile', 'get_metadata', { query: { 'filepaths[0]': 'prints/one.jpg' } });
      expect(meta.json.result).toEqual([{ filepath: 'prints/one.jpg', metadata: { image_id: 'sku 1-A' } }]);
    });

    it('refuses an existing filepath by name and still adds the rest of the batch', async () => {
      const form = formWith(
        [
          { field: 'images[0]', data: await sceneJpeg(2), filename: 'a.jpg' },
          { field: 'images[1]', data: await sceneJpeg(3), filename: 'b.jpg' },
          { field: 'images[2]', data: await sceneJpeg(4), filename: 'c.jpg' },
        ],
        { 'filepaths[0]': 'batch/two.jpg', 'filepaths[1]': 'prints/one.jpg', 'filepaths[2]': 'batch/four.jpg', 'image_ids[2]': '4' },
      );
      const add = await call(sys, 'mobile', 'add', { form });
      expect(add.json.status).toBe('warn');
      expect(add.json.error).toEqual(['prints/one.jpg: This file already exists in the image collection.']);
      const info = await call(sys, 'mobile', 'get_info', { query: { 'filepaths[0]': 'batch/four.jpg', 'filepaths[1]': 'nope.jpg', 'filepaths[2]': 'batch/two.jpg' } });
      expect(info.json.result.map((r: { filepath: string; status: string }) => [r.filepath, r.status])).toEqual([
        ['batch/four.jpg', 'healthy'], ['nope.jpg', 'missing'], ['batch/two.jpg', 'healthy'],
      ]);
      expect(info.json.result[1]).toEqual({ filepath: 'nope.jpg', width: 0, height: 0, fingerprint: 0, date: '0000-00-00', status: 'missing' });
    });

    it('accepts PNG, WEBP, AVIF, static GIF, TIFF and BMP', async () => {
      const files = await Promise.all([
        scene(10, 'png').then((data) => ({ field: 'images[0]', data, filename: 'f/x.png' })),
        scene(11, 'webp').then((data) => ({ field: 'images[1]', data, filename: 'f/x.webp' })),
        scene(12, 'avif').then((data) => ({ field: 'images[2]', data, filename: 'f/x.avif' })),
        scene(13, 'gif').then((data) => ({ field: 'images[3]', data, filename: 'f/x.gif' })),
        scene(14, 'tiff').then((data) => ({ field: 'images[4]', data, filename: 'f/x.tiff' })),
        bmp24(15).then((data) => ({ field: 'images[5]', data, filename: 'f/x.bmp' })),
      ]);
      const add = await call(sys, 'mobile', 'add', { form: formWith(files) });
      expect(add.json.error).toEqual([]);
      expect(add.json.status).toBe('ok');
      const info = await call(sys, 'mobile', 'get_info', { query: { 'filepaths[0]': 'f/x.bmp', 'filepaths[1]': 'f/x.avif' } });
      expect(info.json.result.map((r: { width: number; status: string }) => [r.width, r.status])).toEqual([[160, 'healthy'], [320, 'healthy']]);
    });

    it('refuses animated, corrupt and unsupported images with a message naming each file', async () => {
      const jpeg = await sceneJpeg(20);
      const form = formWith([
        { field: 'images[0]', data: await animatedGif(), filename: 'bad/anim.gif' },
        { field: 'images[1]', data: jpeg.subarray(0, Math.floor(jpeg.length / 2)), filename: 'bad/truncated.jpg' },
        { field: 'images[2]', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), filename: 'bad/vector.svg' },
        { field: 'images[3]', data: Buffer.from('hello world, not an image'), filename: 'bad/notes.txt' },
      ]);
      const add = await call(sys, 'mobile', 'add', { form });
      expect(add.status).toBe(200);
      expect(add.json.status).toBe('fail');
      expect(add.json.error).toHaveLength(4);
      expect(add.json.error[0]).toMatch(/^bad\/anim\.gif: .*[Aa]nimated/);
      expect(add.json.error[1]).toMatch(/^bad\/truncated\.jpg: .*(corrupt|truncated)/);
      expect(add.json.error[2]).toMatch(/^bad\/vector\.svg: .*format/);
      expect(add.json.error[3]).toMatch(/^bad\/notes\.txt: .*format/);
      expect((await call(sys, 'mobile', 'get_info', { query: { filepath: 'bad/anim.gif' } })).json.result[0].status).toBe('missing');
    });

    it('accepts extremely small and single-color images but marks their fingerprint as empty', async () => {
      const add = await call(sys, 'mobile', 'add', {
        form: formWith([
          { field: 'images[0]', data: await sceneJpeg(30, 20, 15), filename: 'odd/tiny.jpg' },
          { field: 'images[1]', data: await flatJpeg(), filename: 'odd/flat.jpg' },
        ]),
      });
      expect(add.json.status).toBe('ok');
      const info = await call(sys, 'mobile', 'get_info', { query: { 'filepaths[0]': 'odd/tiny.jpg', 'filepaths[1]': 'odd/flat.jpg' } });
      expect(info.json.result.map((r: { status: string; fingerprint: number }) => [r.status, r.fingerprint])).toEqual([['healthy', 0], ['healthy', 0]]);
    });

    it('enforces 10 images per add, 10 paths per get_info, and image_id length', async () => {
      const eleven = formWith(Array.from({ length: 11 }, (_, i) => ({ field: `images[${i}]`, data: Buffer.from('x'), filename: `n${i}.jpg` })));
      const tooMany = await call(sys, 'mobile', 'add', { form: eleven });
      expect(tooMany.json).toMatchObject({ status: 'fail', result: [], error: ['At most 10 images or URLs may be sent per request; 11 were sent.'] });
      const paths = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`filepaths[${i}]`, `p${i}`]));
      expect((await call(sys, 'mobile', 'get_info', { query: paths })).json.error[0]).toMatch(/At most 10 filepaths/);
      expect((await call(sys, 'mobile', 'get_info')).json).toMatchObject({ status: 'fail', error: ['Please specify filepath or filepaths[n].'] });
      const longId = await call(sys, 'mobile', 'add', {
        form: formWith([{ field: 'image', data: await sceneJpeg(40), filename: 'long.jpg' }], { image_id: 'x'.repeat(256) }),
      });
      expect(longId.json).toMatchObject({ status: 'fail', error: ['long.jpg: image_id is longer than 255 characters.'] });
    });

    it('downloads URL inputs, refuses private addresses by default, and needs a filepath', async () => {
      const png = await scene(50, 'png');
      const server = http.createServer((req, res) => {
        if (req.url === '/img.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
        else if (req.url === '/redirect') res.writeHead(302, { location: '/img.png' }).end();
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const refused = await call(sys, 'mobile', 'add', { query: { url: `${base}/img.png`, filepath: 'web/a.png' }, method: 'POST' });
        expect(refused.json.status).toBe('fail');
        // The same message as for any unreachable URL (a 404 below), so that answers do not reveal the network.
        expect(refused.json.error[0]).toBe(`${base}/img.png: Failed to download file.`);

        const open = await startTestSystem(mode.name, { ALLOW_PRIVATE_URLS: 'true' });
        try {
          const ok = await call(open, 'mobile', 'add', { query: { 'urls[0]': `${base}/redirect`, 'filepaths[0]': 'web/a.png', 'urls[1]': `${base}/missing.png`, 'filepaths[1]': 'web/b.png' }, method: 'POST' });
          expect(ok.json.status).toBe('warn');
          expect(ok.json.error).toEqual([`${base}/missing.png: Failed to download file.`]);
          expect(ok.json.stats.time_download).toBeGreaterThan(0);
          expect((await call(open, 'mobile', 'list')).json.result).toEqual(['web/a.png']);
          const noPath = await call(open, 'mobile', 'add', { query: { url: `${base}/img.png` }, method: 'POST' });
          expect(noPath.json.error).toEqual([`${base}/img.png: a filepath is required when adding from a URL.`]);
        } finally {
          await open.destroy();
        }
      } finally {
        server.close();
      }
    });

    it('deletes paths, warning about the ones that are not there', async () => {
      const del = await call(sys, 'mobile', 'delete', { method: 'DELETE', query: { 'filepaths[0]': 'batch/two.jpg', 'filepaths[1]': 'ghost.jpg' } });
      expect(del.json).toMatchObject({ method: 'delete', status: 'warn', result: [], error: ['ghost.jpg: This file does not exist in the image collection.'] });
      expect((await call(sys, 'mobile', 'get_info', { query: { filepath: 'batch/two.jpg' } })).json.result[0].status).toBe('missing');
      expect((await call(sys, 'mobile', 'get_metadata', { query: { filepath: 'ghost.jpg' } })).json).toMatchObject({
        status: 'fail',
        error: ['ghost.jpg: This file does not exist in the image collection.'],
      });
    });

    it('lists in insertion order with offset and limit (0 = all)', async () => {
      const all = (await call(sys, 'mobile', 'list', { query: { limit: '0' } })).json.result as string[];
      expect(all[0]).toBe('prints/one.jpg');
      expect((await call(sys, 'mobile', 'list', { query: { offset: '1', limit: '2' } })).json.result).toEqual(all.slice(1, 3));
      expect((await call(sys, 'mobile', 'count')).json.result).toEqual([all.length]);
      expect((await call(sys, 'mobile', 'list', { query: { limit: 'many' } })).json).toMatchObject({ status: 'fail', error: ['limit: "many" is not an integer.'] });
    });

    it('merges query string with urlencoded and chunked multipart bodies, and accepts an empty multipart body', async () => {
      const urlencoded = await fetch(`${sys.url}/mobile/${ACCOUNT}/rest/get_info?filepaths%5B0%5D=prints/one.jpg`, {
        method: 'POST',
        headers: { authorization: AUTH, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'filepaths%5B1%5D=nope.jpg&format=xml',
      });
      const xml = await urlencoded.text();
      expect(xml).toContain('<item><filepath>prints/one.jpg</filepath>');
      expect(xml).toContain('<item><filepath>nope.jpg</filepath><width>0</width>');

      const chunked = await rawRequest(sys.url, '/mobile/acme/rest/get_info', [
        '--XyZ\r\nContent-Disposition: form-data; name="filepaths[]"\r\n\r\nprints/one.jpg\r\n',
        '--XyZ\r\nContent-Disposition: form-data; name="filepaths[]"\r\n\r\nbatch/four.jpg\r\n--XyZ--\r\n',
      ]);
      expect(JSON.parse(chunked).result.map((r: { filepath: string }) => r.filepath)).toEqual(['prints/one.jpg', 'batch/four.jpg']);

      const empty = await fetch(`${sys.url}/mobile/${ACCOUNT}/rest/count/`, {
        method: 'POST',
        headers: { authorization: AUTH, 'content-type': 'multipart/form-data; boundary=abc', 'content-length': '0' },
      });
      expect((await envelopeBody(empty)).status).toBe('ok');
      const noSlash = await fetch(`${sys.url}/mobile/${ACCOUNT}/rest/count`, { headers: { authorization: AUTH } });
      expect((await envelopeBody(noSlash)).method).toBe('count');
    });

    it('refuses an oversized body with 413 and a bad boolean or timeout with a fail envelope', async () => {
      const small = await startTestSystem(mode.name, { MAX_BODY_MB: '1' });
      try {
        const big = await call(small, 'mobile', 'add', { form: formWith([{ field: 'image', data: Buffer.alloc(2 * 1024 * 1024, 7), filename: 'big.jpg' }]) });
        expect(big.status).toBe(413);
        expect(big.json.status).toBe('fail');
      } finally {
        await small.destroy();
      }
      expect((await call(sys, 'mobile', 'count', { query: { timeout: '-1' } })).json.error).toEqual(['timeout: -1 is below the minimum of 0.']);
    });

    it('gives a fail envelope when the timeout expires before the work is done', async () => {
      const files = await Promise.all(Array.from({ length: 8 }, (_, i) => sceneJpeg(60 + i, 1600, 1200).then((data) => ({ field: `images[${i}]`, data, filename: `slow/${i}.jpg` }))));
      const add = await call(sys, 'mobile', 'add', { form: formWith(files, { timeout: '0.05' }) });
      expect(add.json.status).toBe('fail');
      const [, phase] = /timed out after 0\.05 s \(it was still (queued|running)\)/.exec(add.json.error[0]) ?? [];
      expect(phase).toBeDefined();
      if (phase === 'queued') {
        // No worker had taken the job yet (a busy machine): it was withdrawn, so none of the batch may appear.
        await new Promise((r) => setTimeout(r, 500));
        const listed: string[] = (await call(sys, 'mobile', 'list', { query: { limit: '0' } })).json.result;
        expect(listed.filter((path) => path.startsWith('slow/'))).toEqual([]);
        return;
      }
      // The caller gave up, the running job did not: it finishes in the background. Wait for it, so later tests see a
      // still collection.
      const deadline = Date.now() + 45_000;
      let listed: string[] = [];
      while (Date.now() < deadline) {
        listed = (await call(sys, 'mobile', 'list', { query: { limit: '0' } })).json.result;
        if (files.every((f) => listed.includes(f.filename))) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(listed).toEqual(expect.arrayContaining(files.map((f) => f.filename)));
    });

    it('keeps the collection across a gateway restart', async () => {
      const before = (await call(sys, 'mobile', 'list', { query: { limit: '0' } })).json.result;
      sys = await sys.restart();
      expect((await call(sys, 'mobile', 'list', { query: { limit: '0' } })).json.result).toEqual(before);
      expect((await call(sys, 'mobile', 'get_info', { query: { filepath: 'prints/one.jpg' } })).json.result[0].status).toBe('healthy');
    });
  });
}

/** A chunked multipart POST with no Content-Length, as several client libraries send it. */
function rawRequest(base: string, path: string, chunks: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: AUTH, 'content-type': 'multipart/form-data; boundary=XyZ', 'transfer-encoding': 'chunked' },
    }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}
