import { parseManifest, PublicImportService, runImport } from '@loupe/jobs';
import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedQuery, Signing } from './api-signing';
import { apiBody } from './bodies';
import { MODES, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';
import { mailBoundary, multipartBody, pieces, rawRequest } from './raw-http';

/*
 * The public index API as its official clients call it, every method of each (issue 14):
 * - `tineye-api` 1.1.5 (npm, installed as a dev dependency) is driven itself: imageCount, remainingSearches,
 *   searchUrl and searchData, with its own transports (axios for GET, form-data's submit() for the upload, which
 *   writes the absolute URL into the request line).
 * - `pytineye` 1.x, 2.x and 3.x are Python and cannot run here; their requests are sent byte for byte as they send
 *   them (docs/protocol.md §1, §2, §5): 1.x absolute-form targets and mail-style
 *   boundaries, 2.x `results.bundles[]`, 3.x `<host>/rest/<operation>/` with the private key in `x-api-key`.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const TinEye = require('tineye-api');

/**
 * tineye-api's own bug, worked around here and not in the server: searchData hands form-data's submit() the
 * `host:port` of its base URL as the host name, so any non-default port fails its DNS lookup. The patch splits the
 * port off before the request is made; the request line (absolute-form), headers and body stay the client's own.
 */
function patchTinEyeUploadPort(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ClientFormData = require(require.resolve('form-data', { paths: [path.dirname(require.resolve('tineye-api'))] }));
  if (ClientFormData.prototype.submit.loupePatched) return;
  const submit = ClientFormData.prototype.submit;
  const patched = function (this: unknown, params: unknown, cb: unknown) {
    if (params && typeof params === 'object') {
      const options = params as { host?: string; port?: number };
      const hostPort = /^(.*):(\d+)$/.exec(options.host ?? '');
      if (hostPort) params = { ...options, host: hostPort[1], port: Number(hostPort[2]) };
    }
    return submit.call(this, params, cb);
  };
  patched.loupePatched = true;
  ClientFormData.prototype.submit = patched;
}

const MAIN = { publicKey: 'pub-main', privateKey: 'priv-main' };
const HEADER = { publicKey: 'pub-header', privateKey: 'priv-header-0123456789' };
const RATE = { publicKey: 'pub-rate', privateKey: 'priv-rate' };
const BUNDLES = { publicKey: 'pub-bundles', privateKey: 'priv-bundles' };
const API_KEYS = 'main-acct:pub-main:priv-main:1000,header-acct:pub-header:priv-header-0123456789:100,rate-acct:pub-rate:priv-rate:100,bundle-acct:pub-bundles:priv-bundles:40';
const UTC_TEXT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`official public API clients (${mode.name})`, () => {
    let sys: TestSystem;
    let port: number;
    let images: Server;
    let imagesUrl: string;
    const originals: Buffer[] = [];

    const remaining = async (s: Signing) => {
      const res = await fetch(`${sys.url}/api/rest/remaining_searches/?${signedQuery('GET', 'remaining_searches', {}, s, `${sys.url}/api/rest/`)}`);
      return (await apiBody(res, 'remaining_searches')).results;
    };

    beforeAll(async () => {
      patchTinEyeUploadPort();
      images = createServer((req, res) => {
        const i = Number(/\/s(\d+)\./.exec(req.url ?? '')?.[1] ?? -1);
        if (originals[i]) res.writeHead(200, { 'content-type': 'image/jpeg' }).end(originals[i]);
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
      imagesUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
      sys = await startTestSystem(mode.name, { API_KEYS, ALLOW_PRIVATE_URLS: 'true', TRUST_PROXY: 'true' });
      port = Number(new URL(sys.url).port);
      for (let i = 0; i < 3; i++) originals.push(await sceneJpeg(1400 + i, 640, 480));
      const manifest = originals.map((_, i) => JSON.stringify({ image: `${imagesUrl}/s${i}.jpg`, backlink: `https://www.site${i}.example.com/`, crawl_date: '2024-05-01' })).join('\n');
      const imported = await runImport(new PublicImportService(sys.gateway.infra.publicIndex, sys.gateway.infra.blobs), parseManifest(manifest, '/'));
      expect(imported.counts.added).toBe(3);
      // bundle-acct: the seeded block (active), one bought for later, one long expired.
      const account = await sys.gateway.infra.accounts.find('bundle-acct');
      await sys.gateway.infra.publicApi.addBlock(account!.id, 500, new Date(Date.now() + 30 * 86_400_000), new Date(Date.now() + 400 * 86_400_000));
      await sys.gateway.infra.publicApi.addBlock(account!.id, 50, new Date('2019-01-01T00:00:00Z'), new Date('2020-01-01T00:00:00Z'));
    }, 240_000);

    afterAll(async () => {
      await sys?.destroy();
      await new Promise((r) => images?.close(r));
    });

    describe('tineye-api 1.1.5 (npm), every method', () => {
      for (const prefix of ['/api/rest/', '/rest/']) {
        it(`imageCount, remainingSearches, searchUrl and searchData with base URL ${prefix}`, async () => {
          const client = new TinEye(`${sys.url}${prefix}`, MAIN.publicKey, MAIN.privateKey);
          expect(await client.imageCount()).toMatchObject({ code: 200, messages: [], results: 3 });
          const left = await client.remainingSearches();
          expect(left).toMatchObject({ code: 200, results: { remaining_searches: expect.any(Number), start_date: expect.stringMatching(UTC_TEXT) } });
          const byUrl = await client.searchUrl(`${imagesUrl}/s1.jpg`, { limit: 5 });
          expect(byUrl.code).toBe(200);
          expect(byUrl.results.matches[0]).toMatchObject({ image_url: `${imagesUrl}/s1.jpg`, domain: 'site1.example.com' });
          // searchData: the client's own multipart upload, sent with the absolute URL as the request target.
          const crop = await sharp(originals[2]).extract({ left: 80, top: 60, width: 480, height: 360 }).jpeg().toBuffer();
          const byData = await client.searchData(crop, { limit: 3 });
          expect(byData.messages).toEqual([]);
          expect(byData.code).toBe(200);
          expect(byData.results.matches[0]).toMatchObject({ image_url: `${imagesUrl}/s2.jpg`, backlinks: [{ backlink: 'https://www.site2.example.com/' }] });
          // Both searches were charged exactly once.
          expect((await client.remainingSearches()).results.remaining_searches).toBe(left.results.remaining_searches - 2);
        });
      }
    });

    describe('pytineye 1.x: absolute-form targets and mail-style boundaries', () => {
      const clientBase = () => `http://127.0.0.1:${port}/api/rest/`;

      it('signs a GET with the URL it wrote in the request line', async () => {
        const query = signedQuery('GET', 'image_count', {}, { ...MAIN, base: clientBase() }, clientBase());
        const res = await rawRequest(port, { method: 'GET', target: `${clientBase()}image_count/?${query}`, headers: {} });
        expect(res.json).toMatchObject({ code: 200, results: 3 });
        // The same request in origin form is the same request.
        const again = signedQuery('GET', 'image_count', {}, { ...MAIN, base: clientBase() }, clientBase());
        expect((await rawRequest(port, { method: 'GET', target: `/api/rest/image_count/?${again}`, headers: {} })).json).toMatchObject({ code: 200, results: 3 });
      });

      it('uploads with an unquoted ===…== boundary, signed with the boundary as sent', async () => {
        const boundary = mailBoundary();
        const query = signedQuery('POST', 'search', { limit: '2' }, { ...MAIN, base: clientBase() }, clientBase(), { boundary, filename: 'holiday photo.jpg' });
        const body = multipartBody(boundary, [], [{ field: 'image_upload', filename: 'holiday photo.jpg', data: originals[0] }]);
        const res = await rawRequest(port, { method: 'POST', target: `${clientBase()}search/?${query}`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
        expect(res.json.messages).toEqual([]);
        expect(res.json.results.matches[0].image_url).toBe(`${imagesUrl}/s0.jpg`);
      });

      it('refuses a signature made for another URL than the one in the request line', async () => {
        const query = signedQuery('GET', 'image_count', {}, { ...MAIN, base: 'http://elsewhere.example.com/rest/' }, clientBase());
        const res = await rawRequest(port, { method: 'GET', target: `${clientBase()}image_count/?${query}`, headers: {} });
        expect(res.json).toMatchObject({ code: 401, messages: ['INVALID_SIGNATURE', expect.any(String)] });
      });
    });

    describe('pytineye 2.x: remaining_searches with bundles', () => {
      it('lists every block not yet expired and their total, next to the flat fields of older clients', async () => {
        const results = await remaining(BUNDLES);
        expect(results.remaining_searches).toBe(40);
        expect(results.start_date).toMatch(UTC_TEXT);
        expect(results.total_remaining_searches).toBe(540);
        expect(results.bundles).toEqual([
          { remaining_searches: 40, start_date: expect.stringMatching(UTC_TEXT), expire_date: expect.stringMatching(UTC_TEXT) },
          { remaining_searches: 500, start_date: expect.stringMatching(UTC_TEXT), expire_date: expect.stringMatching(UTC_TEXT) },
        ]);
        // pytineye 2.x parses the dates with time.strptime("%Y-%m-%d %X UTC"): later bundles start later.
        expect(results.bundles[0].start_date < results.bundles[1].start_date).toBe(true);
      });
    });

    describe('pytineye 3.x: <host>/rest/<operation>/ with the private key in x-api-key', () => {
      const overHttps = { 'x-forwarded-proto': 'https' };

      it('answers image_count and remaining_searches, and charges a search like a signed one', async () => {
        const count = await fetch(`${sys.url}/rest/image_count/`, { headers: { 'x-api-key': HEADER.privateKey, ...overHttps } });
        expect(count.status).toBe(200);
        expect(await apiBody(count, 'image_count')).toMatchObject({ code: 200, results: 3 });
        const before = await apiBody(await fetch(`${sys.url}/rest/remaining_searches/`, { headers: { 'x-api-key': HEADER.privateKey, ...overHttps } }), 'remaining_searches');
        expect(before.results).toMatchObject({ remaining_searches: 100, total_remaining_searches: 100, bundles: [{ remaining_searches: 100 }] });
        // urllib3's request_encode_body: a hex boundary, image_upload named image.jpg, the options as form fields.
        const boundary = randomBytes(16).toString('hex');
        const body = multipartBody(boundary, [['offset', '0'], ['limit', '100'], ['sort', 'score'], ['order', 'desc']], [{ field: 'image_upload', filename: 'image.jpg', data: originals[1] }]);
        const search = await rawRequest(port, { method: 'POST', target: '/rest/search/', headers: { 'x-api-key': HEADER.privateKey, 'content-type': `multipart/form-data; boundary=${boundary}`, ...overHttps }, body });
        expect(search.status).toBe(200);
        expect(search.json.results.matches[0].image_url).toBe(`${imagesUrl}/s1.jpg`);
        expect((await remaining(HEADER)).remaining_searches).toBe(99);
      });

      it('refuses the header over plain HTTP (no TLS, no trusted X-Forwarded-Proto), and an unknown key', async () => {
        const plain = await fetch(`${sys.url}/rest/image_count/`, { headers: { 'x-api-key': HEADER.privateKey } });
        expect(plain.status).toBe(403);
        expect((await apiBody(plain)).messages).toEqual(['HTTPS_REQUIRED', expect.stringMatching(/only over HTTPS/)]);
        const unknown = await fetch(`${sys.url}/rest/image_count/`, { headers: { 'x-api-key': 'not-a-key', ...overHttps } });
        expect(unknown.status).toBe(401);
        expect((await apiBody(unknown)).messages[0]).toBe('INVALID_API_KEY');
        // The public key is not the secret: it is refused as a header key.
        const publicOnly = await fetch(`${sys.url}/rest/image_count/`, { headers: { 'x-api-key': HEADER.publicKey, ...overHttps } });
        expect(publicOnly.status).toBe(401);
      });

      it('shares the search rate limit of the key with signed calls', async () => {
        const notAnImage = Buffer.from('GIF89a but not really');
        const boundary = randomBytes(16).toString('hex');
        const body = multipartBody(boundary, [], [{ field: 'image_upload', filename: 'image.jpg', data: notAnImage }]);
        const headerSearch = () =>
          fetch(`${sys.url}/rest/search/`, { method: 'POST', headers: { 'x-api-key': RATE.privateKey, 'content-type': `multipart/form-data; boundary=${boundary}`, ...overHttps }, body });
        const signedSearch = () => fetch(`${sys.url}/api/rest/search/?${signedQuery('GET', 'search', { image_url: `${imagesUrl}/missing.jpg` }, RATE, `${sys.url}/api/rest/`)}`);
        const codes: number[] = [];
        for (let i = 0; i < 15; i++) codes.push((await apiBody(await headerSearch())).code, (await apiBody(await signedSearch())).code);
        expect(codes.every((c) => c === 400)).toBe(true);
        const limited = await headerSearch();
        expect(limited.status).toBe(429);
        expect((await apiBody(limited)).messages[0]).toBe('SEARCH_RATE_EXCEEDED');
        expect((await remaining(RATE)).remaining_searches).toBe(100);
      });
    });

    describe('request forms on a raw socket', () => {
      const base = () => `${sys.url}/api/rest/`;
      const upload = (boundary: string, filename = 'image.jpg') => ({
        query: signedQuery('POST', 'search', { limit: '1' }, MAIN, base(), { boundary, filename }),
        body: multipartBody(boundary, [], [{ field: 'image_upload', filename, data: originals[2] }]),
      });
      const expectFound = (res: { status: number; json: any }) => {
        expect(res.status).toBe(200);
        expect(res.json.results.matches[0].image_url).toBe(`${imagesUrl}/s2.jpg`);
      };

      it('origin-form and absolute-form targets, under both prefixes, with and without the trailing slash', async () => {
        for (const prefix of ['/api/rest/', '/rest/']) {
          const signedBase = `${sys.url}${prefix}`;
          for (const target of [`${prefix}image_count/`, `${prefix}image_count`, `${signedBase}image_count/`, `${signedBase}image_count`]) {
            const res = await rawRequest(port, { method: 'GET', target: `${target}?${signedQuery('GET', 'image_count', {}, MAIN, signedBase)}`, headers: {} });
            expect({ target, answer: res.json }).toMatchObject({ target, answer: { code: 200, results: 3 } });
          }
        }
      });

      it('a chunked upload whose boundary lines are cut across chunks', async () => {
        const boundary = 'chunky-boundary-0123';
        const { query, body } = upload(boundary);
        expectFound(await rawRequest(port, { method: 'POST', target: `/api/rest/search/?${query}`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, chunks: pieces(body, 7_001) }));
      });

      it('quoted and unquoted boundaries, the signature covering the boundary without quotes', async () => {
        const quoted = 'quoted boundary=with=equals';
        const q = upload(quoted);
        expectFound(await rawRequest(port, { method: 'POST', target: `/api/rest/search/?${q.query}`, headers: { 'content-type': `multipart/form-data; boundary="${quoted}"` }, body: q.body }));
        const mail = mailBoundary();
        const m = upload(mail);
        expectFound(await rawRequest(port, { method: 'POST', target: `/api/rest/search/?${m.query}`, headers: { 'content-type': `multipart/form-data; boundary=${mail}` }, body: m.body }));
      });

      it('Expect: 100-continue, answered with 100 before the body is read', async () => {
        const boundary = 'continue-0123456789';
        const { query, body } = upload(boundary);
        const res = await rawRequest(
          port,
          { method: 'POST', target: `${base()}search/?${query}`, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, chunks: pieces(body, 16_384), expectContinue: true },
          { continueWaitMs: 30_000 },
        );
        expect(res.interim).toEqual([100]);
        expectFound(res);
      });
    });
  });
}
