import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseManifest, PublicImportService, runImport } from '@loupe/jobs';
import { MODES, startTestSystem, TestSystem } from './harness';
import { multipart, signedQuery, Signing } from './api-signing';
import { apiBody } from './bodies';
import { flatJpeg, sceneJpeg } from './images';

// The public Node client: its GET calls go through unchanged; its upload signing is used with our own transport,
// because its form.submit() drops non-default ports (it passes "host:port" as the host name).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const TinEye = require('tineye-api');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ApiRequest = require('tineye-api/lib/api_request.js');

const MAIN = { publicKey: 'pub-main', privateKey: 'priv-main' };
const QUOTA = { publicKey: 'pub-quota', privateKey: 'priv-quota' };
const RATE = { publicKey: 'pub-rate', privateKey: 'priv-rate' };
const OLD = { publicKey: 'pub-old', privateKey: 'priv-old' };

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`public index API over HTTP (${mode.name})`, () => {
    let sys: TestSystem;
    let base: string;
    let images: Server;
    let imagesUrl: string;
    const originals: Buffer[] = [];

    const get = async <Op extends string>(operation: Op, params: Record<string, string> = {}, s: Signing = MAIN, headers: Record<string, string> = {}) => {
      const query = signedQuery('GET', operation, params, s, base);
      const res = await fetch(`${base}${operation}/?${query}`, { headers });
      return { status: res.status, body: await apiBody(res, operation), text: '' };
    };
    const upload = async (data: Buffer, params: Record<string, string> = {}, s: Signing = MAIN, filename = 'query image.jpg') => {
      const boundary = `----loupe${randomBytes(6).toString('hex')}`;
      const query = signedQuery('POST', 'search', params, s, base, { boundary, filename });
      const res = await fetch(`${base}search/?${query}`, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: multipart(boundary, filename, data),
      });
      return { status: res.status, body: await apiBody(res, 'search') };
    };

    beforeAll(async () => {
      images = createServer((req, res) => {
        const i = Number(/\/s(\d+)[.%]/.exec(req.url ?? '')?.[1] ?? -1);
        if (originals[i]) res.writeHead(200, { 'content-type': 'image/jpeg' }).end(originals[i]);
        else if ((req.url ?? '').includes('text')) res.writeHead(200, { 'content-type': 'image/jpeg' }).end('this is not an image');
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
      imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
      sys = await startTestSystem(mode.name, {
        API_KEYS: 'main-acct:pub-main:priv-main:1000,quota-acct:pub-quota:priv-quota:5,rate-acct:pub-rate:priv-rate:100,old-acct:pub-old:priv-old:0',
        ALLOW_PRIVATE_URLS: 'true',
        TRUST_PROXY: 'true',
      });
      base = `${sys.url}/api/rest/`;
      const old = await sys.gateway.infra.accounts.find('old-acct');
      await sys.gateway.infra.publicApi.addBlock(old!.id, 50, new Date('2020-01-01T00:00:00Z'), new Date('2021-01-01T00:00:00Z'));

      for (let i = 0; i < 5; i++) originals.push(await sceneJpeg(700 + i, 640, 480));
      const manifest = [
        ...originals.map((_, i) => JSON.stringify({ image: `${imagesUrl}/s${i}.jpg`, backlink: `https://www.site${i}.example.com/page`, crawl_date: `2024-0${i + 1}-15` })),
        // The same bytes on a second site: one image, reported once per domain.
        JSON.stringify({ image: `${imagesUrl}/s0.jpg?copy`, image_url: 'https://mirror.example.org/cat.jpg', backlink: 'https://mirror.example.org/blog/post', crawl_date: '2024-07-01' }),
      ].join('\n');
      const service = new PublicImportService(sys.gateway.infra.publicIndex, sys.gateway.infra.blobs);
      const first = await runImport(service, parseManifest(manifest, '/'));
      expect(first.counts).toEqual({ added: 5, backlink: 1, skipped: 0, failed: 0 });
      const again = await runImport(service, parseManifest(manifest, '/'));
      expect(again.counts).toEqual({ added: 0, backlink: 0, skipped: 6, failed: 0 });
    }, 240_000);

    afterAll(async () => {
      await sys?.destroy();
      await new Promise((r) => images?.close(r));
    });

    it('counts the indexed images (distinct bytes), through the public Node client', async () => {
      const client = new TinEye(base, MAIN.publicKey, MAIN.privateKey);
      const answer = await client.imageCount();
      expect(answer).toMatchObject({ code: 200, messages: [], results: 5 });
      expect(answer.stats.timestamp).toMatch(/^\d+\.\d{2}$/);
      expect(answer.stats.query_time).toMatch(/^\d+\.\d{2}$/);
    });

    it('reports the active search block with UTC dates', async () => {
      const client = new TinEye(base, MAIN.publicKey, MAIN.privateKey);
      const answer = await client.remainingSearches();
      expect(answer.code).toBe(200);
      expect(answer.results.remaining_searches).toBe(1000);
      expect(answer.results.start_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
      expect(answer.results.expire_date).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    });

    it('finds an uploaded crop first, with backlinks per domain and an overlay of index image and query side by side', async () => {
      const crop = await sharp(originals[0]).extract({ left: 120, top: 90, width: 400, height: 300 }).jpeg({ quality: 80 }).toBuffer();
      const res = await upload(crop, { limit: '10' });
      expect(res.status).toBe(200);
      expect(res.body.code).toBe(200);
      const { results } = res.body;
      expect(results.total_results).toBe(2);
      expect(results.total_backlinks).toBe(2);
      const domains = results.matches.map((m: { domain: string }) => m.domain).sort();
      expect(domains).toEqual(['mirror.example.org', 'site0.example.com']);
      const site = results.matches.find((m: { domain: string }) => m.domain === 'site0.example.com')!;
      expect(site).toMatchObject({ image_url: `${imagesUrl}/s0.jpg`, width: 640, height: 480, size: 640 * 480, format: 'JPEG', filesize: originals[0].length });
      expect(site.score).toBeGreaterThan(50);
      expect(site.backlinks).toEqual([{ url: `${imagesUrl}/s0.jpg`, backlink: 'https://www.site0.example.com/page', crawl_date: '2024-01-15' }]);
      expect(site.overlay).toMatch(/^overlay\/pub-main\/[0-9a-f-]{36}\.\d+\.[0-9a-f]{32}\.jpg$/);
      const overlay = await fetch(`${base}${site.overlay}`);
      expect(overlay.status).toBe(200);
      expect(overlay.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await overlay.arrayBuffer())).metadata();
      expect(meta.width).toBe(2 * meta.height! * (640 / 480));
      const tampered = site.overlay.replace(/\.([0-9a-f])([0-9a-f]{31})\.jpg$/, (_: string, a: string, rest: string) => `.${a === '0' ? '1' : '0'}${rest}.jpg`);
      expect((await fetch(`${base}${tampered}`)).status).toBe(404);
      expect((await get('remaining_searches')).body.results.remaining_searches).toBeLessThan(1000);
    });

    it('searches by image_url with spaces and % (HMAC-SHA1 and HMAC-SHA256), honouring limit and offset', async () => {
      const url = `${imagesUrl}/dir with space/s3 100% sure.jpg`;
      const sha1 = await get('search', { image_url: url, limit: '1' }, { ...MAIN, algorithm: 'sha1' });
      expect(sha1.body.code).toBe(200);
      expect(sha1.body.results.matches[0].image_url).toBe(`${imagesUrl}/s3.jpg`);
      const sha256 = await get('search', { image_url: url, offset: '1' }, { ...MAIN, algorithm: 'sha256' });
      expect(sha256.body).toMatchObject({ code: 200, results: { total_results: 1, matches: [] } });
    });

    it('searches by URL and by upload with the public client signing the request', async () => {
      const client = new TinEye(base, MAIN.publicKey, MAIN.privateKey);
      const byUrl = await client.searchUrl(`${imagesUrl}/s2.jpg`, { limit: 5 });
      expect(byUrl.results.matches[0].image_url).toBe(`${imagesUrl}/s2.jpg`);
      // searchData's own transport cannot reach a non-default port; sign with the client, send with fetch.
      const signer = new ApiRequest(base, MAIN.publicKey, MAIN.privateKey);
      const boundary = '--------------------------loupe0123456789';
      const path = signer.postRequest('search', 'My Photo!.jpg', { limit: 10, offset: 0, sort: 'score', order: 'desc' }, boundary);
      const res = await fetch(path, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: multipart(boundary, 'My Photo!.jpg', await sharp(originals[4]).rotate(90).jpeg().toBuffer()),
      });
      const body = await apiBody(res, 'search');
      expect(body.code).toBe(200);
      expect(body.results.matches[0].image_url).toBe(`${imagesUrl}/s4.jpg`);
    });

    it('rebuilds the signed URL from X-Forwarded-Proto/Host/Prefix behind a trusted proxy', async () => {
      const external = 'https://images.example.net/public/api/rest/';
      const query = signedQuery('GET', 'image_count', {}, { ...MAIN, base: external }, base);
      const res = await fetch(`${base}image_count/?${query}`, {
        headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'images.example.net', 'x-forwarded-prefix': '/public' },
      });
      expect((await apiBody(res)).code).toBe(200);
    });

    it('indents the JSON with pretty=true', async () => {
      const query = signedQuery('GET', 'image_count', { pretty: 'true' }, MAIN, base);
      const text = await (await fetch(`${base}image_count/?${query}`)).text();
      expect(text).toContain('\n  "stats": {\n');
    });

    describe('refuses', () => {
      it('a call without signature arguments, and an unknown operation', async () => {
        const res = await fetch(`${base}image_count/`);
        expect(res.status).toBe(400);
        const body = await apiBody(res);
        expect(body).toMatchObject({ code: 400, results: [] });
        expect(body.messages[0]).toBe('BAD_REQUEST');
        expect(body.messages[1]).toMatch(/api_key, api_sig, date, nonce/);
        expect((await get('no_such_thing')).body).toMatchObject({ code: 404, messages: ['NOT_FOUND', expect.any(String)] });
      });

      it('a wrong private key, an unknown public key and a tampered parameter', async () => {
        expect((await get('image_count', {}, { ...MAIN, privateKey: 'guess' })).body).toMatchObject({ code: 401, messages: ['INVALID_SIGNATURE', expect.any(String)] });
        expect((await get('image_count', {}, { publicKey: 'nobody', privateKey: 'x' })).body).toMatchObject({ code: 401, messages: ['INVALID_API_KEY', expect.any(String)] });
        const query = signedQuery('GET', 'search', { image_url: `${imagesUrl}/s1.jpg`, limit: '1' }, MAIN, base);
        query.set('limit', '2');
        const res = await fetch(`${base}search/?${query}`);
        expect(res.status).toBe(401);
        expect((await apiBody(res)).messages[0]).toBe('INVALID_SIGNATURE');
      });

      it('a date more than 15 minutes away, and accepts one within', async () => {
        const now = Math.floor(Date.now() / 1000);
        expect((await get('image_count', {}, { ...MAIN, date: now - 16 * 60 })).body).toMatchObject({ code: 401, messages: ['INVALID_DATE', expect.any(String)] });
        expect((await get('image_count', {}, { ...MAIN, date: now + 16 * 60 })).body.code).toBe(401);
        expect((await get('image_count', {}, { ...MAIN, date: now - 14 * 60 })).body.code).toBe(200);
      });

      it('a reused nonce, and a nonce that is too short or has other characters', async () => {
        const nonce = `once-${randomBytes(8).toString('hex')}`;
        expect((await get('image_count', {}, { ...MAIN, nonce })).body.code).toBe(200);
        expect((await get('image_count', {}, { ...MAIN, nonce })).body).toMatchObject({ code: 401, messages: ['NONCE_REUSED', expect.any(String)] });
        expect((await get('image_count', {}, { ...MAIN, nonce: 'short' })).body).toMatchObject({ code: 400, messages: ['BAD_REQUEST', expect.any(String)] });
        expect((await get('image_count', {}, { ...MAIN, nonce: 'has/slash/in/it' })).body.code).toBe(400);
      });

      it('downloads that fail and files that are not images (BAD_REQUEST), and images without a signature (NO_SIGNATURE_ERROR)', async () => {
        const closed = await get('search', { image_url: 'http://127.0.0.1:1/nothing.jpg' });
        expect(closed.body).toMatchObject({ code: 400, results: [], messages: ['BAD_REQUEST', expect.stringMatching(/Download failed/)] });
        const text = await get('search', { image_url: `${imagesUrl}/text.jpg` });
        expect(text.body).toMatchObject({ code: 400, messages: ['BAD_REQUEST', expect.stringMatching(/Image cannot be identified/)] });
        const webp = await upload(await sharp(originals[1]).webp().toBuffer());
        expect(webp.body.messages).toEqual(['BAD_REQUEST', expect.stringMatching(/JPEG, PNG and GIF/)]);
        const flat = await upload(await flatJpeg(300, 200));
        expect(flat.body).toMatchObject({ code: 400, results: [], messages: ['NO_SIGNATURE_ERROR', expect.any(String)] });
        const tiny = await upload(await sharp(originals[1]).resize(20, 15).jpeg().toBuffer());
        expect(tiny.body.messages[0]).toBe('NO_SIGNATURE_ERROR');
      });

      it('an expired block, and an account without one', async () => {
        const expired = await get('search', { image_url: `${imagesUrl}/s1.jpg` }, OLD);
        expect(expired.body).toMatchObject({ code: 403, messages: ['SEARCH_BLOCK_EXPIRED', expect.stringMatching(/expired on 2021-01-01 00:00:00 UTC/)] });
        const remaining = await get('remaining_searches', {}, OLD);
        // An expired block is no bundle of the newer shape (docs/protocol.md §5): nothing remains.
        expect(remaining.body.results).toEqual({ remaining_searches: 0, start_date: '2020-01-01 00:00:00 UTC', expire_date: '2021-01-01 00:00:00 UTC', bundles: [], total_remaining_searches: 0 });
      });
    });

    it('warns and refuses past 30 searches a minute per key, without charging them', async () => {
      const notAnImage = Buffer.from('GIF89a but not really');
      const started = Date.now();
      const answers = [];
      for (let i = 0; i < 30; i++) answers.push((await upload(notAnImage, {}, RATE)).body);
      expect(answers.every((a) => a.code === 400)).toBe(true);
      // The limit is a bucket of 30 refilled at 30 a minute: on a slow machine the 30 calls took long enough to earn a
      // search back for every 2 s they took, which may be spent before the refusal.
      const earned = Math.floor((Date.now() - started) / 2000) + 1;
      const boundary = '----rate';
      let res: Response | undefined;
      for (let extra = 0; extra <= earned && res?.status !== 429; extra++) {
        const query = signedQuery('POST', 'search', {}, RATE, base, { boundary, filename: 'x.gif' });
        res = await fetch(`${base}search/?${query}`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: multipart(boundary, 'x.gif', notAnImage) });
        if (res.status !== 429) {
          expect(res.status).toBe(400);
          await res.arrayBuffer();
        }
      }
      res = res!;
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = await apiBody(res);
      expect(body.messages[0]).toBe('SEARCH_RATE_EXCEEDED');
      expect(body.messages[1]).toMatch(/more than 30 searches per minute/);
      // Other calls and other keys are not limited; nothing was charged.
      expect((await get('remaining_searches', {}, RATE)).body.results.remaining_searches).toBe(100);
    });

    it('spends a block exactly once per search under 20 concurrent searches', async () => {
      const query = await sharp(originals[2]).extract({ left: 100, top: 100, width: 420, height: 320 }).jpeg().toBuffer();
      const answers = await Promise.all(Array.from({ length: 20 }, () => upload(query, { limit: '1' }, QUOTA)));
      const codes = answers.map((a) => a.body.code);
      expect(codes.filter((c) => c === 200)).toHaveLength(5);
      expect(codes.filter((c) => c === 403)).toHaveLength(15);
      const refused = answers.find((a) => a.body.code === 403)!.body;
      expect(refused.messages).toEqual(['NO_SEARCHES_REMAINING', expect.stringMatching(/All 5 searches/)]);
      expect((await get('remaining_searches', {}, QUOTA)).body.results.remaining_searches).toBe(0);
    }, 120_000);
  });
}
