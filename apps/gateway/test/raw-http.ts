import net from 'node:net';

/**
 * HTTP/1.1 written byte for byte on a socket, for the request forms fetch() never produces: absolute-form targets,
 * hand-made chunked bodies, unquoted boundaries, `Expect: 100-continue`. The answer is read until the server closes
 * (requests say `Connection: close`).
 */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Interim answers seen before the final one, e.g. [100] after `Expect: 100-continue`. */
  interim: number[];
  json: any;
}

export interface RawRequest {
  method: string;
  /** The request target exactly as it goes on the request line: `/path?q` or `http://host:port/path?q`. */
  target: string;
  headers: Record<string, string>;
  /** Sent as is, or as chunks of a `Transfer-Encoding: chunked` body. */
  body?: Buffer;
  chunks?: Buffer[];
  /** Hold the body back until the server answers `100 Continue` (at most `continueWaitMs`). */
  expectContinue?: boolean;
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

function parseAnswer(raw: Buffer): RawAnswer {
  const interim: number[] = [];
  let rest = raw;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete HTTP answer: ${rest.toString('latin1').slice(0, 200)}`);
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(statusLine.split(' ')[1]);
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const payload = rest.subarray(end + 4);
    if (status >= 100 && status < 200) {
      interim.push(status);
      rest = payload;
      continue;
    }
    const body = (headers['transfer-encoding'] ?? '').includes('chunked') ? decodeChunked(payload) : payload;
    const text = body.toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status, headers, body: text, interim, json };
  }
}

export function rawRequest(port: number, request: RawRequest, options: { timeoutMs?: number; continueWaitMs?: number } = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, connection: 'close', ...request.headers };
  if (request.chunks) headers['transfer-encoding'] = 'chunked';
  else if (request.body) headers['content-length'] = String(request.body.length);
  if (request.expectContinue) headers.expect = '100-continue';
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
  const body = request.chunks
    ? Buffer.concat([...request.chunks.flatMap((c) => [Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]), Buffer.from('0\r\n\r\n')])
    : (request.body ?? Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const received: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1');
    let bodySent = false;
    const sendBody = () => {
      if (bodySent) return;
      bodySent = true;
      socket.write(body);
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${options.timeoutMs ?? 60_000} ms`));
    }, options.timeoutMs ?? 60_000);
    socket.on('connect', () => {
      socket.write(head);
      // A client that asked for 100-continue waits for it, but (as curl does) not for ever.
      if (request.expectContinue) setTimeout(sendBody, options.continueWaitMs ?? 10_000).unref();
      else sendBody();
    });
    socket.on('data', (d: Buffer) => {
      received.push(d);
      if (request.expectContinue && !bodySent && Buffer.concat(received).toString('latin1').startsWith('HTTP/1.1 100')) sendBody();
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseAnswer(Buffer.concat(received)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** A multipart/form-data body with text fields and file parts, delimited by `boundary` exactly as given. */
export function multipartBody(boundary: string, fields: Array<[string, string]>, files: Array<{ field: string; filename: string; data: Buffer; type?: string }>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.field}"; filename="${f.filename}"\r\nContent-Type: ${f.type ?? 'image/jpeg'}\r\n\r\n`));
    parts.push(f.data, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(parts);
}

/** Splits a buffer into pieces of at most `size` bytes (chunked bodies with boundaries cut across chunks). */
export function pieces(data: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) out.push(data.subarray(at, at + size));
  return out;
}

/** Python's email package writes boundaries like this, unquoted in Content-Type. */
export function mailBoundary(): string {
  return `===============${String(Math.floor(Math.random() * 1e18)).padStart(19, '1')}==`;
}
