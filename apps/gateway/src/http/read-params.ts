import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { ParamError, Params, PayloadTooLargeError, UploadedFile } from '@loupe/envelope';

export interface BodyLimits {
  maxBodyBytes: number;
  maxFileBytes: number;
}

/** Query-string pairs exactly as sent (URLSearchParams keeps `name[0]` keys intact and decodes `%5B`). */
function queryPairs(url: string | undefined): Array<[string, string]> {
  const at = url?.indexOf('?') ?? -1;
  if (!url || at < 0) return [];
  return [...new URLSearchParams(url.slice(at + 1))];
}

async function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new PayloadTooLargeError(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function declaredLength(req: IncomingMessage): number | null {
  const header = req.headers['content-length'];
  return header === undefined ? null : Number(header);
}

/**
 * Multipart bodies are streamed through busboy, chunked or not. Each file is held in memory up to the per-file limit
 * (the worker needs the whole image anyway); the whole body is bounded by the request limit.
 */
function readMultipart(req: IncomingMessage, limits: BodyLimits, maxFiles: number): Promise<{ fields: Array<[string, string]>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    const fields: Array<[string, string]> = [];
    const files: UploadedFile[] = [];
    const pendingFiles: Array<Promise<void>> = [];
    let total = 0;
    let sawAnyByte = false;
    let failed = false;
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      req.unpipe();
      req.resume();
      reject(error);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: limits.maxFileBytes, fieldSize: 1024 * 1024, files: maxFiles, fields: 1000 },
        defParamCharset: 'utf8',
        // The multipart file name is the default collection path (specification 2.3), folders included.
        preservePath: true,
      });
    } catch (error) {
      reject(new ParamError(`The multipart body could not be read: ${(error as Error).message}.`));
      return;
    }
    req.on('data', (chunk: Buffer) => {
      sawAnyByte = true;
      total += chunk.length;
      if (total > limits.maxBodyBytes) fail(new PayloadTooLargeError(limits.maxBodyBytes));
    });
    parser.on('field', (name, value) => fields.push([name, value]));
    parser.on('file', (name, stream, info) => {
      const parts: Buffer[] = [];
      const entry: UploadedFile = { field: name, filename: info.filename ?? '', data: Buffer.alloc(0), contentType: info.mimeType };
      files.push(entry);
      stream.on('data', (d: Buffer) => parts.push(d));
      stream.on('limit', () => fail(new PayloadTooLargeError(limits.maxFileBytes)));
      pendingFiles.push(
        new Promise<void>((done) =>
          stream.on('close', () => {
            entry.data = Buffer.concat(parts);
            done();
          }),
        ),
      );
    });
    parser.on('error', (error: Error) => {
      // An empty chunked body is as valid as Content-Length 0: "no parameters" (compatibility.md).
      if (!sawAnyByte) resolve({ fields, files });
      else fail(new ParamError(`The multipart body could not be read: ${error.message}.`));
    });
    parser.on('close', () => {
      void Promise.all(pendingFiles).then(() => {
        if (!failed) resolve({ fields, files });
      });
    });
    req.pipe(parser);
  });
}

export interface RequestContent {
  /** Query-string pairs, then body fields, in arrival order and exactly as sent (signatures cover them). */
  pairs: Array<[string, string]>;
  files: UploadedFile[];
}

export interface ReadOptions {
  /** Methods whose body is ignored (the public API signs GET requests over the query string alone). */
  bodylessMethods?: readonly string[];
  /** Most file parts accepted; more make the multipart reader stop with an error. */
  maxFiles?: number;
}

/** Reads the query string and the body (multipart, chunked or not; urlencoded; or none), bounded by the limits. */
export async function readRequest(req: IncomingMessage, limits: BodyLimits, options: ReadOptions = {}): Promise<RequestContent> {
  const fromQuery = queryPairs(req.url);
  const length = declaredLength(req);
  if (length !== null && length > limits.maxBodyBytes) throw new PayloadTooLargeError(limits.maxBodyBytes);
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  if (length === 0 || options.bodylessMethods?.includes((req.method ?? 'GET').toUpperCase())) {
    req.resume();
    return { pairs: fromQuery, files: [] };
  }
  if (contentType.startsWith('multipart/form-data')) {
    const body = await readMultipart(req, limits, options.maxFiles ?? 100);
    return { pairs: [...fromQuery, ...body.fields], files: body.files };
  }
  const raw = await readRaw(req, limits.maxBodyBytes);
  if (raw.length > 0 && (contentType.startsWith('application/x-www-form-urlencoded') || contentType === '')) {
    return { pairs: [...fromQuery, ...new URLSearchParams(raw.toString('utf8'))], files: [] };
  }
  return { pairs: fromQuery, files: [] };
}

/** Merges query string and body into one Params, in arrival order. */
export async function readParams(req: IncomingMessage, limits: BodyLimits): Promise<Params> {
  const content = await readRequest(req, limits);
  return new Params(content.pairs, content.files);
}
