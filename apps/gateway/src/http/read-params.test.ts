import { ParamError, PayloadTooLargeError } from '@loupe/envelope';
import fc from 'fast-check';
import { Agent, createServer, request, Server } from 'node:http';
import { AddressInfo, connect } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FIELDS, readRequest } from './read-params';

/**
 * readRequest on real sockets: a server in this process reads every request with it and answers with what it got,
 * so a body that makes any stream throw would surface as an uncaught error (vitest fails the run), and one that makes
 * the reader hang would leave its request unanswered (each request has a bounded wait).
 */
type Outcome =
  | { kind: 'ok'; pairs: Array<[string, string]>; files: Array<{ field: string; filename: string; size: number }> }
  | { kind: 'param'; message: string }
  | { kind: 'too-large' }
  | { kind: 'other'; message: string };

const LIMITS = { maxBodyBytes: 4 * 1024 * 1024, maxFileBytes: 16 * 1024 };
const MAX_FILES = 5;
/** Long enough for a loaded CI machine; a reader that hangs never answers at all. */
const ANSWER_WAIT_MS = 10_000;

let server: Server;
let port: number;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
/** Outcomes of requests whose client went away, by X-Probe id (nobody can read their answers). */
const settled = new Map<string, Outcome>();

async function outcomeOf(promise: ReturnType<typeof readRequest>): Promise<Outcome> {
  try {
    const content = await promise;
    return { kind: 'ok', pairs: content.pairs, files: content.files.map((f) => ({ field: f.field, filename: f.filename, size: f.data.length })) };
  } catch (error) {
    if (error instanceof ParamError) return { kind: 'param', message: error.message };
    if (error instanceof PayloadTooLargeError) return { kind: 'too-large' };
    return { kind: 'other', message: String((error as Error)?.stack ?? error) };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void outcomeOf(readRequest(req, LIMITS, { maxFiles: MAX_FILES })).then((outcome) => {
      const probe = req.headers['x-probe'];
      if (typeof probe === 'string') settled.set(probe, outcome);
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  agent.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends one request (Content-Length, or chunked in the given pieces) and returns what the reader made of it. */
function send(body: Buffer, contentType: string, options: { chunks?: Buffer[] } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': contentType };
    if (!options.chunks) headers['content-length'] = body.length;
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/add/', headers, agent, timeout: ANSWER_WAIT_MS }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(parts).toString('utf8')) as Outcome));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ANSWER_WAIT_MS} ms: the reader hangs`)));
    req.on('error', reject);
    if (options.chunks) for (const chunk of options.chunks) req.write(chunk);
    else req.write(body);
    req.end();
  });
}

/** A real upload as clients send it: a small JPEG and the usual fields, serialised by the platform's FormData. */
async function realUpload(): Promise<{ body: Buffer; contentType: string; boundary: string; jpeg: Buffer }> {
  const jpeg = await sharp({ create: { width: 24, height: 16, channels: 3, background: { r: 200, g: 40, b: 90 } } }).jpeg().toBuffer();
  const form = new FormData();
  form.append('filepath', 'folder/a.jpg');
  form.append('image_id', 'id-1');
  form.append('image', new Blob([jpeg], { type: 'image/jpeg' }), 'folder/a.jpg');
  form.append('format', 'json');
  const response = new Response(form);
  const contentType = response.headers.get('content-type')!;
  return { body: Buffer.from(await response.arrayBuffer()), contentType, boundary: /boundary=(.+)$/.exec(contentType)![1], jpeg };
}

/** What every reading may end in: content, or a refusal that becomes a `fail` envelope (or 413). Never anything else. */
function expectHandled(outcome: Outcome, label: string): void {
  expect(['ok', 'param', 'too-large'], `${label}: ${JSON.stringify(outcome)}`).toContain(outcome.kind);
  if (outcome.kind === 'param') expect(outcome.message, label).toMatch(/^(The multipart body could not be read: .+\.|At most \d+ .+ were sent\.)$/);
}

describe('readRequest on a multipart upload cut or corrupted anywhere', () => {
  let upload: Awaited<ReturnType<typeof realUpload>>;
  beforeAll(async () => {
    upload = await realUpload();
  });

  it('reads the whole upload: every field and the file, byte for byte', async () => {
    const outcome = await send(upload.body, upload.contentType);
    expect(outcome).toEqual({
      kind: 'ok',
      pairs: [['filepath', 'folder/a.jpg'], ['image_id', 'id-1'], ['format', 'json']],
      files: [{ field: 'image', filename: 'folder/a.jpg', size: upload.jpeg.length }],
    });
  });

  it('answers the body of the issue (a file part cut before the closing boundary) with a fail message', async () => {
    const body = Buffer.from('--xyz\r\nContent-Disposition: form-data; name="image_upload"; filename="a.jpg"\r\n\r\nabc');
    expect(await send(body, 'multipart/form-data; boundary=xyz')).toEqual({ kind: 'param', message: 'The multipart body could not be read: Unexpected end of form.' });
    // Sent chunked, the same cut body ends the same way.
    expect(await send(body, 'multipart/form-data; boundary=xyz', { chunks: [body.subarray(0, 40), body.subarray(40)] })).toMatchObject({ kind: 'param' });
  });

  it('settles for the upload cut at every byte offset, refusing every cut inside the parts', async () => {
    const closing = upload.body.lastIndexOf(Buffer.from(`--${upload.boundary}--`));
    let refused = 0;
    for (let cut = 0; cut <= upload.body.length; cut++) {
      const outcome = await send(upload.body.subarray(0, cut), upload.contentType);
      expectHandled(outcome, `cut at ${cut} of ${upload.body.length}`);
      if (cut === 0) expect(outcome, 'an empty body means no parameters').toEqual({ kind: 'ok', pairs: [], files: [] });
      // Before the closing boundary, some part is incomplete: the body must be refused, never read as a shorter file.
      else if (cut < closing) expect(outcome.kind, `cut at ${cut}`).toBe('param');
      if (outcome.kind === 'param') refused += 1;
    }
    expect(refused).toBeGreaterThanOrEqual(closing - 1);
  });

  it('settles for corrupted boundaries, in the body or in Content-Type, sent whole or in random chunks', async () => {
    const { body, boundary, contentType } = upload;
    const starts: number[] = [];
    for (let at = body.indexOf(boundary); at >= 0; at = body.indexOf(boundary, at + 1)) starts.push(at);
    const corruption = fc.oneof(
      // One byte of one boundary line changed.
      fc.record({ kind: fc.constant('byte' as const), which: fc.nat(starts.length - 1), offset: fc.nat(boundary.length - 1), value: fc.integer({ min: 0, max: 255 }) }),
      // A boundary line's CRLF removed or doubled.
      fc.record({ kind: fc.constant('crlf' as const), which: fc.nat(starts.length - 1), double: fc.boolean() }),
      // Content-Type names another boundary, a quoted or empty one, or none.
      fc.record({ kind: fc.constant('header' as const), value: fc.constantFrom(`${boundary}x`, `"${boundary}"`, '""', '', boundary.slice(0, 10), '-'.repeat(71)) }),
      // A random byte string in place of a boundary.
      fc.record({ kind: fc.constant('random' as const), which: fc.nat(starts.length - 1), bytes: fc.uint8Array({ minLength: 0, maxLength: 90 }) }),
    );
    await fc.assert(
      fc.asyncProperty(corruption, fc.array(fc.nat(body.length), { maxLength: 6 }), async (c, splits) => {
        let bytes = Buffer.from(body);
        let type = contentType;
        if (c.kind === 'byte') bytes[starts[c.which] + c.offset] = c.value;
        else if (c.kind === 'header') type = c.value === '' ? 'multipart/form-data' : `multipart/form-data; boundary=${c.value}`;
        else {
          const at = starts[c.which];
          const end = at + boundary.length;
          const replacement = c.kind === 'random' ? Buffer.from(c.bytes) : Buffer.from(body.subarray(at, end).toString('latin1') + (c.double ? '\r\n' : ''), 'latin1');
          const after = c.kind === 'crlf' && !c.double ? end + 2 : end;
          bytes = Buffer.concat([bytes.subarray(0, at), replacement, bytes.subarray(after)]);
        }
        expectHandled(await send(bytes, type), `${JSON.stringify(c)} whole`);
        const cuts = [...new Set(splits.filter((s) => s < bytes.length))].sort((a, b) => a - b);
        const chunks = [0, ...cuts].map((from, i) => bytes.subarray(from, cuts[i] ?? bytes.length)).filter((b) => b.length > 0);
        expectHandled(await send(bytes, type, { chunks }), `${JSON.stringify(c)} chunked at ${cuts.join(',')}`);
      }),
      { numRuns: 150 },
    );
  });

  it('settles when the client goes away in the middle of the body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: upload.body.length - 1 }), fc.uuid(), async (cut, probe) => {
        const socket = connect(port, '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(
          `POST /add/ HTTP/1.1\r\nHost: x\r\nX-Probe: ${probe}\r\nContent-Type: ${upload.contentType}\r\nContent-Length: ${upload.body.length}\r\n\r\n`,
        );
        socket.write(upload.body.subarray(0, cut));
        // Let the server start reading before the reset, then vanish.
        await new Promise((resolve) => setTimeout(resolve, 5));
        socket.resetAndDestroy();
        const deadline = Date.now() + ANSWER_WAIT_MS;
        while (!settled.has(probe) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
        const outcome = settled.get(probe);
        expect(outcome, `the reader settles after a reset at byte ${cut}`).toBeDefined();
        expect(outcome).toMatchObject({ kind: 'param', message: expect.stringMatching(/^The multipart body could not be read: /) });
      }),
      { numRuns: 25 },
    );
  });
});

describe('readRequest limits', () => {
  const part = (boundary: string, name: string, filename?: string, content = 'x') =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${content}\r\n`;

  it('reports the real number of files when more than the limit are sent', async () => {
    const body = Array.from({ length: 8 }, (_, i) => part('b', `images[${i}]`, `${i}.jpg`)).join('') + '--b--\r\n';
    expect(await send(Buffer.from(body), 'multipart/form-data; boundary=b')).toEqual({ kind: 'param', message: `At most ${MAX_FILES} files may be sent per request; 8 were sent.` });
  });

  it('reports the real number of parameters past the limit, in multipart and urlencoded bodies', async () => {
    const count = MAX_FIELDS + 7;
    const multipart = Array.from({ length: count }, (_, i) => part('b', `f${i}`)).join('') + '--b--\r\n';
    const message = `At most ${MAX_FIELDS} parameters may be sent per request; ${count} were sent.`;
    expect(await send(Buffer.from(multipart), 'multipart/form-data; boundary=b')).toEqual({ kind: 'param', message });
    const urlencoded = Array.from({ length: count }, (_, i) => `f${i}=1`).join('&');
    expect(await send(Buffer.from(urlencoded), 'application/x-www-form-urlencoded')).toEqual({ kind: 'param', message });
    // Empty segments are not parameters: exactly the limit passes.
    const atLimit = `&&${Array.from({ length: MAX_FIELDS }, (_, i) => `f${i}=1`).join('&')}&`;
    expect(await send(Buffer.from(atLimit), 'application/x-www-form-urlencoded')).toMatchObject({ kind: 'ok' });
  });

  it('refuses a field value that busboy would cut, instead of reading the cut text', async () => {
    const longValue = part('b', 'image_id', undefined, 'v'.repeat(1024 * 1024 + 1)) + '--b--\r\n';
    expect(await send(Buffer.from(longValue), 'multipart/form-data; boundary=b')).toEqual({ kind: 'param', message: 'image_id: the value is longer than 1048576 bytes.' });
  });

  it('refuses a body or a file over its limit, whole or chunked, and keeps serving', async () => {
    const bigFile = part('b', 'image', 'big.jpg', 'x'.repeat(LIMITS.maxFileBytes + 10)) + '--b--\r\n';
    expect(await send(Buffer.from(bigFile), 'multipart/form-data; boundary=b')).toEqual({ kind: 'too-large' });
    const bigBody = Buffer.alloc(LIMITS.maxBodyBytes + 10, 'a');
    expect(await send(bigBody, 'application/x-www-form-urlencoded', { chunks: [bigBody.subarray(0, 1000), bigBody.subarray(1000)] })).toEqual({ kind: 'too-large' });
    expect(await send(Buffer.from('a=1'), 'application/x-www-form-urlencoded')).toEqual({ kind: 'ok', pairs: [['a', '1']], files: [] });
  });
});

describe('readRequest on multipart parts without a name', () => {
  const nameless = (disposition: string, content = 'x') => Buffer.from(`--b\r\nContent-Disposition: ${disposition}\r\n\r\n${content}\r\n--b\r\nContent-Disposition: form-data; name="limit"\r\n\r\n3\r\n--b--\r\n`);

  it('leaves out a value part with an empty or missing name (it can be no parameter), keeping the others', async () => {
    // busboy reports these names as undefined; passed on, they made Params throw a TypeError (an HTTP 500).
    for (const disposition of ['form-data; name=""', 'form-data']) {
      expect(await send(nameless(disposition), 'multipart/form-data; boundary=b'), disposition).toEqual({ kind: 'ok', pairs: [['limit', '3']], files: [] });
    }
  });

  it('refuses a file part without a name, saying so and naming its file', async () => {
    expect(await send(nameless('form-data; name=""; filename="a.jpg"'), 'multipart/form-data; boundary=b')).toEqual({
      kind: 'param',
      message: 'A file part of the multipart body has no name (file name "a.jpg"); send each file under its parameter\'s name, e.g. image or images[0].',
    });
    // busboy reports `filename=""` as a field: its content type tells it from a value.
    expect(await send(nameless('form-data; name=""; filename=""\r\nContent-Type: image/jpeg'), 'multipart/form-data; boundary=b')).toEqual({
      kind: 'param',
      message: "A file part of the multipart body has no name; send each file under its parameter's name, e.g. image or images[0].",
    });
  });
});
