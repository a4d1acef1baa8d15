import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG, COMMON_PARAMS, ParamDoc } from '../../src/docs/catalog';
import { scene, sceneJpeg } from '../images';
import { hostileGlob, hostileImage, hostileValue, keyForm, strayName, URLS } from './arbitraries';
import { FuzzFinding, Fuzzer } from './fuzzer';
import { FUZZ_API, FUZZ_AUTH, FuzzModeName, GatewayProcess } from './gateway-process';
import { apiForged, apiGet, apiUpload, collectionPath, collectionRequest, multipartBody, Part, Transport } from './requests';

/**
 * Hostile traffic against a real gateway process (issue 12): uploads cut at every byte, corrupted multipart, random and
 * oversized parameters on every operation of every service and of the public API, junk images, backtracking globs and
 * raw-socket junk. The gateway must never exit, never answer 5xx, always answer an envelope with a precise message,
 * answer within a bound, and not grow without bound. Figures are printed per mode for docs/reliability.md.
 *
 * FUZZ_RUNS=<n> scales every property's runs and time budget (default 1: about 2 minutes per mode on 2 loaded cores);
 * FUZZ_SEED=<seed> replays a run (fast-check prints the seed and counterexample path of any failure).
 */
const SCALE = Math.max(1, Number(process.env.FUZZ_RUNS ?? 1));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const REQUEST_BOUND_MS = Number(process.env.FUZZ_REQUEST_BOUND_MS ?? 20_000);
/** Growth of the gateway's resident memory over a whole run that counts as unbounded. */
const MAX_RSS_GROWTH = 150 * 1024 * 1024;

// The same rule as harness.ts (which this suite does not import: it would load the whole gateway into the test
// process, while here the gateway runs as a child): real mode needs both servers, and CI requires it.
const missing = ['TEST_DATABASE_URL', 'TEST_REDIS_URL'].filter((name) => !process.env[name]);
if (missing.length > 0 && process.env.REQUIRE_REAL_SERVERS === '1') {
  throw new Error(`REQUIRE_REAL_SERVERS=1 but ${missing.join(' and ')} not set: the real-mode fuzz suite cannot run.`);
}
const MODES: Array<{ name: FuzzModeName; enabled: boolean }> = [
  { name: 'embedded', enabled: true },
  { name: 'real', enabled: missing.length === 0 },
];

/** Seeded collection paths; one file name is 60 letters long, the prey of backtracking globs. */
const LONG_NAME = `fuzz/deep/${'a'.repeat(60)}.jpg`;
const SEEDED = ['fuzz/scene0.jpg', LONG_NAME, 'fuzz/scene2.jpg'];

const SHORT = (text: string, max = 800) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/**
 * A failure as a short message: fast-check's own report quotes whole counterexamples (100 kB values), which makes
 * test reporters crawl; the seed and path replay the case (FUZZ_SEED, FUZZ_PATH).
 */
function shortReport(name: string, details: { numRuns: number; numShrinks: number; seed: number; counterexamplePath: string | null; counterexample: unknown; errorInstance: unknown }): string {
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return [
    `${name}: property failed after ${details.numRuns} cases, shrunk ${details.numShrinks} times`,
    `replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath}`,
    `counterexample: ${SHORT(fc.stringify(details.counterexample))}`,
    ...cause.split('\n').map((line) => SHORT(line)),
  ].join('\n');
}

/** Runs one property within a time budget: once spent, cases pass untried, which also ends shrinking early. */
async function check<T>(fuzzer: Fuzzer, name: string, arbitrary: fc.Arbitrary<T>, run: (value: T) => Promise<void>, options: { runs: number; budgetMs: number; examples?: T[] }): Promise<void> {
  const deadline = Date.now() + options.budgetMs * SCALE;
  fuzzer.property = name;
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      if (Date.now() > deadline) return;
      await run(value);
    }),
    { numRuns: options.runs * SCALE + (options.examples?.length ?? 0), examples: options.examples?.map((e) => [e] as [T]), seed: SEED, path: process.env.FUZZ_PATH },
  );
  if (details.failed) throw new Error(shortReport(name, details));
}

/** Operations of the collection services, from the catalog the docs are generated from. */
const OPERATIONS: Array<{ service: string; operation: string; params: ParamDoc[] }> = Object.entries(CATALOG).flatMap(([service, ops]) =>
  Object.entries(ops).map(([operation, doc]) => ({ service, operation, params: [...doc.params, ...COMMON_PARAMS] })),
);

const sane: Record<string, string[]> = {
  filepath: SEEDED,
  filepaths: SEEDED,
  colors: ['255,0,0', '#00ff00', '0000ff', 'wildcard'],
  count_colors: ['255,0,0', 'ffffff'],
  weights: ['50', '100'],
  metadata: ['{"keywords":["red"]}', '<metadata><keywords>red</keywords></metadata>'],
  format: ['json', 'xml'],
  callback: ['cb', 'a.b'],
};

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`fuzz: hostile traffic never takes down, holds or grows the gateway (${mode.name})`, () => {
    let gateway: GatewayProcess;
    let fuzzer: Fuzzer;
    let jpeg: Buffer;
    let realImages: Buffer[];

    beforeAll(async () => {
      gateway = await GatewayProcess.start(mode.name);
      fuzzer = new Fuzzer(gateway, REQUEST_BOUND_MS);
      // A small real JPEG keeps "every byte offset" affordable; larger real images serve the image properties.
      jpeg = await sceneJpeg(11, 48, 36);
      const seeds = await Promise.all([0, 1, 2].map((i) => sceneJpeg(300 + i, 320, 240)));
      realImages = [seeds[0], await scene(5, 'png', 96, 72), await scene(6, 'webp', 96, 72), await scene(7, 'gif', 96, 72), jpeg];
      const files: Part[] = seeds.map((data, i) => ({ name: `images[${i}]`, value: data, filename: SEEDED[i] }));
      for (const [service, operation] of [['mobile', 'add'], ['match', 'add'], ['color', 'update']]) {
        const answer = await fuzzer.send(collectionRequest(service, operation, [], files, 'multipart'));
        expect(answer.body.status, `${service} ${operation}: ${answer.text}`).toBe('ok');
      }
      // Every service's engines (OCR, palettes, matching, the public index) are loaded before memory is measured, so
      // that the growth measured is what the hostile traffic left behind, not what a first call loads.
      const warmUps = [
        collectionRequest('wine', 'extract_text', [], [{ name: 'image', value: seeds[0], filename: 'w.jpg' }], 'multipart'),
        collectionRequest('color', 'extract_image_colors', [], [{ name: 'image', value: seeds[1], filename: 'c.jpg' }], 'multipart'),
        collectionRequest('mobile', 'search', [], [{ name: 'image', value: seeds[2], filename: 'm.jpg' }], 'multipart'),
        collectionRequest('match', 'compare', [], [{ name: 'image1', value: seeds[0], filename: 'a.jpg' }, { name: 'image2', value: seeds[1], filename: 'b.jpg' }], 'multipart'),
        apiUpload(gateway.url, {}, (boundary) => multipartBody(boundary, [{ name: 'image_upload', value: seeds[0], filename: 'q.jpg' }]), 'q.jpg'),
      ];
      for (const request of warmUps) await fuzzer.send(request);
      fuzzer.figures.rssBefore = (await gateway.rss()) ?? undefined;
    }, 240_000);

    afterAll(async () => {
      if (!gateway) return;
      fuzzer.figures.rssAfter = (await gateway.rss()) ?? undefined;
      const f = fuzzer.figures;
      const mb = (n?: number) => (n === undefined ? '?' : `${Math.round(n / 1024 / 1024)} MB`);
      console.log(
        `\nfuzz figures (${mode.name}): ${f.requests} requests + ${f.rawConnections} raw connections, ${gateway.exits.length} process exits, ` +
          `${f.fiveXX} answers 5xx, ${f.hangs} hangs, ${f.restarts} restarts, slowest answer ${f.maxMs} ms, ` +
          `RSS ${mb(f.rssBefore)} before → ${mb(f.rssAfter)} after${gateway.restarts > 0 ? ' (of the last restarted process)' : ''}; ` +
          `answers by status ${JSON.stringify(f.statuses)}`,
      );
      if (fuzzer.findings.length > 0) {
        console.log(`fuzz findings (${mode.name}):\n${fuzzer.findings.map((x) => `- [${x.kind}] ${x.property}: ${x.detail.slice(0, 1500)}\n    request: ${x.request.slice(0, 1500)}`).join('\n')}`);
      }
      fuzzer.close();
      await gateway.destroy();
    }, 120_000);

    it('a real multipart upload cut at every byte offset, and hung up mid-body, never crashes add, search or the public API', async () => {
      const boundary = '----fuzzcut0123456789';
      const targets = {
        add: multipartBody(boundary, [{ name: 'image_id', value: 'cut' }, { name: 'image', value: jpeg, filename: 'cut/x.jpg' }, { name: 'filepath', value: 'cut/x.jpg' }]),
        search: multipartBody(boundary, [{ name: 'limit', value: '3' }, { name: 'image', value: jpeg, filename: 'q.jpg' }, { name: 'min_score', value: '1' }]),
        api: multipartBody(boundary, [{ name: 'image_upload', value: jpeg, filename: 'q.jpg' }]),
      };
      type Target = keyof typeof targets;
      type Cut = { target: Target; at: number; how: 'exact' | 'chunked' | 'hang-up' };
      const every: Cut[] = (Object.keys(targets) as Target[]).flatMap((target) => Array.from({ length: targets[target].length + 1 }, (_, at) => ({ target, at, how: 'exact' as const })));
      const cut = fc
        .constantFrom(...(Object.keys(targets) as Target[]))
        .chain((target) => fc.record({ target: fc.constant(target), at: fc.integer({ min: 0, max: targets[target].length }), how: fc.constantFrom<Cut['how']>('exact', 'chunked', 'hang-up') }));
      await check(fuzzer, 'multipart cut', cut, async ({ target, at, how }) => {
        const body = targets[target].subarray(0, at);
        const contentType = `multipart/form-data; boundary=${boundary}`;
        const path = target === 'api' ? `/api/rest/search/` : collectionPath('mobile', target);
        if (how === 'hang-up') {
          const auth = target === 'api' ? '' : `Authorization: ${FUZZ_AUTH}\r\n`;
          const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: ${contentType}\r\nContent-Length: ${targets[target].length}\r\n\r\n`;
          await fuzzer.raw(Buffer.concat([Buffer.from(head), body]), { hangUp: true });
          return;
        }
        const request = target === 'api'
          ? apiUpload(gateway.url, {}, () => body, 'q.jpg', boundary)
          : { method: 'POST', path, headers: { authorization: FUZZ_AUTH, 'content-type': contentType }, body, expect: 'collection' as const };
        await fuzzer.send({ ...request, body, chunked: how === 'chunked' });
      }, { runs: 150, budgetMs: 40_000, examples: every });
    }, 300_000);

    it('corrupted boundaries and part headers are refused with an envelope', async () => {
      const boundary = 'fuzzboundary';
      const good: Part[] = [{ name: 'filepath', value: 'corrupt/x.jpg' }, { name: 'image', value: jpeg, filename: 'corrupt/x.jpg' }];
      const headerType = fc.oneof(
        fc.constantFrom(
          `multipart/form-data; boundary=${boundary}`, 'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=""',
          `multipart/form-data; boundary="${boundary}"`, `multipart/form-data; boundary=other`, `multipart/form-data; boundary=${'b'.repeat(5000)}`,
          `multipart/form-data; boundary=${boundary}; boundary=other`, `MULTIPART/FORM-DATA; BOUNDARY=${boundary}`, 'multipart/mixed; boundary=fuzzboundary',
          `multipart/form-data; boundary=${boundary}; charset=utf-7`, 'multipart/form-data; boundary=\u00ff\u00e9', `multipart/form-data;boundary=${boundary}`,
          'application/x-www-form-urlencoded', 'application/json', 'image/jpeg', 'text/plain; charset=bogus', '',
        ),
        // Printable only: a header value with control characters is refused by the client itself (raw junk covers those).
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 }).map((s) => `multipart/form-data; boundary=${s}`),
      );
      const partHeaders = fc.constantFrom<Part[]>(
        good,
        [{ name: '', value: jpeg, filename: '' }],
        [{ name: 'image', value: jpeg, filename: '../../../etc/passwd' }],
        [{ name: 'image', value: jpeg, filename: `${'a/'.repeat(2000)}x.jpg` }],
        [{ name: 'image', value: jpeg, filename: 'a\u0000b.jpg' }],
        [{ name: 'image', value: jpeg, filename: 'x.jpg', contentType: `image/jpeg\r\nContent-Transfer-Encoding: base64` }],
        [{ name: `image"; filename="y.jpg`, value: jpeg, filename: 'x.jpg' }],
        [{ name: 'image', value: 'not a file' }],
        [{ name: 'images[99999999]', value: jpeg, filename: 'x.jpg' }],
        [{ name: 'x'.repeat(20_000), value: 'v' }],
        [{ name: 'filepath', value: 'x'.repeat(2_000_000) }],
      );
      const mutation = fc.oneof(
        fc.constant((b: Buffer) => b),
        fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([at, junk]) => (b: Buffer) => {
          const i = Math.floor(at * b.length);
          return Buffer.concat([b.subarray(0, i), Buffer.from(junk), b.subarray(i)]);
        }),
        fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 200 })).map(([at, n]) => (b: Buffer) => {
          const i = Math.floor(at * b.length);
          return Buffer.concat([b.subarray(0, i), b.subarray(i + n)]);
        }),
        fc.constant((b: Buffer) => Buffer.from(b.toString('latin1').replace(/\r\n/g, '\n'), 'latin1')),
        fc.constant((b: Buffer) => Buffer.from(b.toString('latin1').replace(`--${boundary}--`, `--${boundary}`), 'latin1')),
        fc.constant((b: Buffer) => Buffer.from(b.toString('latin1').replace(/Content-Disposition: [^\r]*/g, ''), 'latin1')),
        fc.constant((b: Buffer) => Buffer.concat([b, b])),
        fc.constant((b: Buffer) => Buffer.concat([Buffer.from('preamble junk\r\n'), b, Buffer.from('epilogue junk')])),
      );
      await check(fuzzer, 'multipart corruption', fc.record({ type: headerType, parts: partHeaders, mutate: mutation, service: fc.constantFrom('mobile', 'match', 'color', 'wine'), chunked: fc.boolean() }), async (c) => {
        const operation = c.service === 'color' ? 'update' : 'add';
        await fuzzer.send({ method: 'POST', path: collectionPath(c.service, operation), headers: { authorization: FUZZ_AUTH, 'content-type': c.type }, body: c.mutate(multipartBody(boundary, c.parts)), chunked: c.chunked, expect: 'collection' });
      }, { runs: 250, budgetMs: 12_000 });
    }, 120_000);

    /** A value for a documented parameter: hostile mostly, sometimes sane so that deeper code is reached. */
    const valueFor = (param: ParamDoc): fc.Arbitrary<string> => {
      if (param.name.startsWith('url')) return fc.constantFrom(...URLS);
      const options: Array<fc.Arbitrary<string>> = [hostileValue];
      if (sane[param.name]) options.push(fc.constantFrom(...sane[param.name]));
      if (param.enum) options.push(fc.constantFrom(...param.enum));
      return fc.oneof(...options);
    };

    const operationCall = fc.constantFrom(...OPERATIONS, { service: 'mobile', operation: 'no_such_operation', params: COMMON_PARAMS }, { service: 'nosuchservice', operation: 'ping', params: COMMON_PARAMS }).chain((op) =>
      fc.record({
        op: fc.constant(op),
        fields: fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...op.params.filter((p) => p.type !== 'file')).chain((p) => fc.tuple(keyForm.map((k) => k(p.name)), valueFor(p))) },
            { weight: 1, arbitrary: fc.tuple(strayName, hostileValue) },
          ),
          { maxLength: 8 },
        ),
        files: fc.array(
          fc.tuple(fc.constantFrom(...op.params.filter((p) => p.type === 'file').map((p) => p.name), 'image', 'images'), keyForm, fc.constantFrom('x.jpg', '', '../x.jpg', 'a'.repeat(3000)), fc.nat({ max: 2 })),
          { maxLength: 3 },
        ),
        transport: fc.constantFrom<Transport>('query', 'urlencoded', 'multipart', 'multipart-chunked'),
        method: fc.constantFrom('GET', 'POST', 'POST', 'DELETE', 'PUT', 'PATCH'),
      }),
    );

    it('random and oversized values on every operation of every service answer an envelope, never a fault', async () => {
      // Every operation is called at least once with hostile values, then random ones.
      const examples = OPERATIONS.map(({ service, operation, params }) => ({
        op: { service, operation, params },
        fields: params.filter((p) => p.type !== 'file').map((p): [string, string] => [p.name, p.name.startsWith('url') ? URLS[0] : '9223372036854775808']),
        files: [] as Array<[string, (name: string) => string, string, number]>,
        transport: 'urlencoded' as Transport,
        method: 'POST',
      }));
      // Found by CI: an image_id with a NUL reached Postgres, which refuses one in text (an internal error).
      const colorAdd = OPERATIONS.find((o) => o.service === 'color' && o.operation === 'add')!;
      examples.push({ op: colorAdd, fields: [['image_id[0]', '\u0000']], files: [['image', (name) => `${name}[0]`, 'x.jpg', 0]], transport: 'multipart', method: 'GET' });
      await check(fuzzer, 'operation parameters', operationCall, async (c) => {
        const files: Part[] = c.files.map(([name, form, filename, which]) => ({ name: form(name), value: [jpeg, randomBytes(64), Buffer.alloc(0)][which], filename }));
        const transport = c.method === 'GET' && c.transport !== 'query' && files.length === 0 ? 'query' : c.transport;
        await fuzzer.send(collectionRequest(c.op.service, c.op.operation, c.fields, files, transport, c.method));
      }, { runs: 700, budgetMs: 35_000, examples });
    }, 180_000);

    /**
     * Operations that change the collection: the JSON call's effect changes the XML call's answer (a delete of a seeded
     * path answers ok, then "does not exist"), which is no disagreement of the formats.
     */
    const CHANGES = new Set(['add', 'update', 'update_metadata', 'delete']);

    it('the same refusal reads the same in JSON and XML', async () => {
      await check(fuzzer, 'json/xml agreement', operationCall.filter((c) => !CHANGES.has(c.op.operation)), async (c) => {
        // A timeout makes the answer depend on timing (a call may just finish, or not), not on the format.
        const fields = c.fields.filter(([k]) => !/^(format|callback|timeout)/.test(k));
        const json = await fuzzer.send(collectionRequest(c.op.service, c.op.operation, [...fields, ['format', 'json']], [], 'urlencoded'));
        const xml = await fuzzer.send(collectionRequest(c.op.service, c.op.operation, [...fields, ['format', 'xml']], [], 'urlencoded'));
        const errors = (answer: typeof json) => {
          const body = answer.body?.data ?? answer.body;
          const list = body?.error;
          if (list === '' || list === undefined) return [];
          return Array.isArray(list) ? list : Array.isArray(list.item) ? list.item.map(String) : [String(list)];
        };
        const status = (answer: typeof json) => (answer.body?.data ?? answer.body)?.status;
        if (json.status !== xml.status || status(json) !== status(xml) || JSON.stringify(errors(json)) !== JSON.stringify(errors(xml))) {
          throw new FuzzFinding({
            kind: 'inconsistent',
            property: 'json/xml agreement',
            detail: `JSON says ${json.status} ${status(json)} ${JSON.stringify(errors(json)).slice(0, 400)}, XML says ${xml.status} ${status(xml)} ${JSON.stringify(errors(xml)).slice(0, 400)}`,
            request: `${c.op.service}/${c.op.operation} ${JSON.stringify(fields).slice(0, 800)}`,
          });
        }
      }, { runs: 100, budgetMs: 8_000 });
    }, 120_000);

    const apiParam = fc.tuple(fc.constantFrom('offset', 'limit', 'sort', 'order', 'image_url', 'pretty', 'domain', 'backlink_limit', 'format'), hostileValue);
    const apiParams = (params: Array<[string, string]>) => Object.fromEntries(params.map(([k, v]) => [k, k === 'image_url' ? URLS[v.length % URLS.length] : v]));

    it('random and oversized values on the public API answer its envelope, never a fault', async () => {
      const call = fc.record({ operation: fc.constantFrom('search', 'image_count', 'remaining_searches', 'nope', 'overlay', '__proto__'), params: fc.array(apiParam, { maxLength: 6 }) });
      await check(fuzzer, 'public API parameters', call, async (c) => {
        await fuzzer.send(apiGet(gateway.url, c.operation, apiParams(c.params)));
      }, { runs: 300, budgetMs: 12_000 });
    }, 120_000);

    it('random bytes, truncated and corrupted images are refused with a precise message', async () => {
      const targets = [
        (data: Buffer) => collectionRequest('mobile', 'search', [['limit', '3']], [{ name: 'image', value: data, filename: 'q.bin' }], 'multipart'),
        (data: Buffer) => collectionRequest('match', 'compare', [], [{ name: 'image1', value: data, filename: 'a.bin' }, { name: 'image2', value: jpeg, filename: 'b.jpg' }], 'multipart'),
        (data: Buffer) => collectionRequest('mobile', 'add', [['filepath', `junk/${randomBytes(8).toString('hex')}.jpg`]], [{ name: 'image', value: data, filename: 'j.bin' }], 'multipart'),
        (data: Buffer) => collectionRequest('color', 'extract_image_colors', [], [{ name: 'image', value: data, filename: 'c.bin' }], 'multipart'),
        (data: Buffer) => collectionRequest('wine', 'extract_metadata', [], [{ name: 'image', value: data, filename: 'w.bin' }], 'multipart'),
        (data: Buffer) => apiUpload(gateway.url, {}, (boundary) => multipartBody(boundary, [{ name: 'image_upload', value: data, filename: 'q.jpg' }]), 'q.jpg'),
      ];
      await check(fuzzer, 'junk images', fc.tuple(fc.nat({ max: targets.length - 1 }), hostileImage(realImages)), async ([target, image]) => {
        await fuzzer.send(targets[target](image.data));
      }, { runs: 200, budgetMs: 20_000 });
    }, 120_000);

    it('hostile name_filter and path_filter globs are answered within the bound', async () => {
      const search = fc.record({
        target: fc.constantFrom('mobile', 'match', 'color', 'wine'),
        filter: fc.constantFrom('name_filter', 'path_filter'),
        glob: hostileGlob,
      });
      const examples = [{ target: 'color', filter: 'name_filter', glob: '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b' }];
      await check(fuzzer, 'hostile globs', search, async (c) => {
        const pairs: Array<[string, string]> = c.target === 'color'
          ? [['colors[0]', '255,0,0'], [c.filter, c.glob], ['limit', '0']]
          : [['filepath', LONG_NAME], [c.filter, c.glob]];
        const operation = c.target === 'color' ? 'color_search' : 'search';
        await fuzzer.send(collectionRequest(c.target, operation, pairs, [], 'urlencoded'));
      }, { runs: 120, budgetMs: 15_000, examples });
    }, 180_000);

    it('a single-value field sent twice is refused, naming the field', async () => {
      const twice = fc.record({
        field: fc.constantFrom('image', 'filepath', 'url', 'limit', 'offset', 'min_score', 'name_filter'),
        service: fc.constantFrom('mobile', 'match'),
      });
      await check(fuzzer, 'duplicate fields', twice, async ({ field, service }) => {
        const files: Part[] = field === 'image' ? [{ name: 'image', value: jpeg, filename: 'a.jpg' }, { name: 'image', value: realImages[0], filename: 'b.jpg' }] : [{ name: 'image', value: realImages[0], filename: 'q.jpg' }];
        const values: Record<string, [string, string]> = { filepath: SEEDED.slice(0, 2) as [string, string], url: [URLS[0], URLS[1]], limit: ['1', '2'], offset: ['0', '1'], min_score: ['1', '2'], name_filter: ['*', 'x*'] };
        const pairs: Array<[string, string]> = field === 'image' ? [] : values[field].map((v): [string, string] => [field, v]);
        const answer = await fuzzer.send(collectionRequest(service, 'search', pairs, field === 'filepath' || field === 'url' ? [] : files, 'multipart'));
        const errors: string[] = answer.body?.error ?? [];
        if (answer.body?.status !== 'fail' || !errors.some((e) => e.includes(field))) {
          throw new FuzzFinding({ kind: 'inconsistent', property: 'duplicate fields', detail: `"${field}" sent twice was not refused by name: ${answer.text.slice(0, 400)}`, request: `${service}/search with ${field} twice` });
        }
      }, { runs: 14, budgetMs: 10_000 });
    }, 60_000);

    it('too many files: the refusal states how many were sent', async () => {
      await check(fuzzer, 'file count', fc.integer({ min: 11, max: 150 }), async (n) => {
        const files: Part[] = Array.from({ length: n }, (_, i) => ({ name: `images[${i}]`, value: Buffer.from([i & 255]), filename: `n/${i}.jpg` }));
        const answer = await fuzzer.send(collectionRequest('mobile', 'add', [], files, 'multipart'));
        const stated = (answer.body?.error ?? []).map((e: string) => /(\d+) were sent/.exec(e)?.[1]).find(Boolean);
        if (answer.body?.status !== 'fail' || (stated !== undefined && Number(stated) !== n)) {
          throw new FuzzFinding({ kind: 'imprecise', property: 'file count', detail: `${n} files sent, answer: ${answer.text.slice(0, 400)}`, request: `mobile/add with images[0..${n - 1}]` });
        }
      }, { runs: 10, budgetMs: 8_000, examples: [150] });
    }, 60_000);

    it('raw-socket junk (malformed request lines, absurd headers, broken chunking) never faults the gateway', async () => {
      const target = fc.constantFrom('/', '*', '/mobile/fuzz/rest/ping/', '/api/rest/search/', 'http://127.0.0.1/mobile/fuzz/rest/ping/', '//', '/%', '/%00', '/../../etc/passwd', `/${'a'.repeat(20_000)}`, '/mobile/fuzz/rest/%E0%A4%A/', '/\u00ff', '');
      const line = fc.oneof(
        fc.tuple(fc.constantFrom('GET', 'POST', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PRI', 'G\u0000ET', 'get', '', 'X'.repeat(1000)), target, fc.constantFrom('HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1x', '', 'HTTP/1'))
          .map(([m, t, v]) => `${m} ${t} ${v}`),
        fc.string({ unit: 'binary-ascii', maxLength: 200 }),
      );
      const header = fc.oneof(
        fc.constantFrom(
          'Content-Length: -1', 'Content-Length: 1e9', 'Content-Length: 5, 6', 'Content-Length: 99999999999999999999', 'Transfer-Encoding: chunked',
          'Transfer-Encoding: gzip, chunked', 'Transfer-Encoding: chunked\r\nContent-Length: 3', 'Host:', 'Host: a\r\nHost: b', `X-Big: ${'x'.repeat(70_000)}`,
          `Authorization: Basic ${'A'.repeat(10_000)}`, 'Authorization: Basic !!!', 'Authorization: Bearer x', `Authorization: ${FUZZ_AUTH}`,
          'Content-Type: multipart/form-data; boundary=', 'Content-Type: multipart/form-data; boundary=x', 'Expect: 100-continue', 'Connection: upgrade\r\nUpgrade: websocket',
          ' folded: header', 'No-Colon', 'X-Nul: a\u0000b', 'X-Request-Id: ' + 'r'.repeat(10_000), 'Cookie: ' + 'c=1; '.repeat(3000),
        ),
        fc.tuple(fc.string({ unit: 'binary-ascii', maxLength: 30 }), fc.string({ unit: 'binary-ascii', maxLength: 60 })).map(([k, v]) => `${k}: ${v}`),
      );
      const body = fc.oneof(
        fc.constant(''),
        fc.constantFrom('0\r\n\r\n', 'zz\r\nabc\r\n0\r\n\r\n', 'ffffffffffffffff\r\nabc', '5\r\nab\r\n', '--x\r\nContent-Disposition: form-data; name="image"; filename="a.jpg"\r\n\r\nabc'),
        fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a).toString('latin1')),
      );
      const junk = fc.record({ line, headers: fc.array(header, { maxLength: 6 }), body, hangUp: fc.boolean(), extraHeaders: fc.nat({ max: 3 }) });
      await check(fuzzer, 'raw socket junk', junk, async (c) => {
        const many = c.extraHeaders === 3 ? Array.from({ length: 3000 }, (_, i) => `X-H${i}: ${i}`) : [];
        const text = `${c.line}\r\nHost: 127.0.0.1\r\n${[...c.headers, ...many].map((h) => `${h}\r\n`).join('')}\r\n${c.body}`;
        await fuzzer.raw(Buffer.from(text, 'latin1'), { hangUp: c.hangUp });
      }, { runs: 250, budgetMs: 12_000 });
      // The gateway still serves after all of it.
      expect(await gateway.answers(REQUEST_BOUND_MS)).toBe(true);
    }, 120_000);

    // Last but one: failed signatures throttle the client address, which would turn the public API cases above into 429s.
    it('forged and hostile signature fields on the public API are refused with its envelope', async () => {
      const forged = fc.record({
        operation: fc.constantFrom('search', 'image_count', 'remaining_searches'),
        params: fc.array(fc.tuple(fc.constantFrom('api_key', 'date', 'nonce', 'api_sig', 'api_key', 'date'), fc.oneof(hostileValue, fc.constantFrom(FUZZ_API.publicKey, String(Math.floor(Date.now() / 1000))))), { maxLength: 6 }),
        extra: fc.array(apiParam, { maxLength: 3 }),
      });
      // Found by CI: Postgres refuses a NUL in text, so looking up this key was an internal error in real mode.
      const nulKey: typeof forged extends fc.Arbitrary<infer Case> ? Case : never = {
        operation: 'search',
        params: [['nonce', 'pub-fuzz'], ['api_key', 'a\u0000b'], ['date', String(Math.floor(Date.now() / 1000))]],
        extra: [],
      };
      await check(fuzzer, 'public API forged signatures', forged, async (c) => {
        await fuzzer.send(apiForged(c.operation, { ...apiParams(c.extra), ...Object.fromEntries(c.params) }));
      }, { runs: 150, budgetMs: 8_000, examples: [nulKey] });
    }, 60_000);

    it('after the whole run: no process exit and bounded memory growth', async () => {
      // Let queued work and timers settle before measuring.
      await new Promise((r) => setTimeout(r, 2_000));
      const after = await gateway.rss();
      fuzzer.figures.rssAfter = after ?? undefined;
      expect(gateway.exits.map((e) => `exit code ${e.code} signal ${e.signal}\n${e.output}`)).toEqual([]);
      expect(fuzzer.figures.fiveXX).toBe(0);
      if (gateway.restarts === 0 && fuzzer.figures.rssBefore !== undefined && after !== null) {
        expect(after - fuzzer.figures.rssBefore, 'RSS growth over the run').toBeLessThan(MAX_RSS_GROWTH);
      }
    });
  });
}
