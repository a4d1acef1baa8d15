import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { ParamError, Params, PayloadTooLargeError, quoteInput, UploadedFile } from '@loupe/envelope';
import { withQuotedBoundary } from './content-type';

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

/**
 * Most parameters (query string, form fields) one call may carry. No operation needs more than a few dozen; the bound
 * keeps a body of millions of tiny fields from costing memory and the linear lookups of Params.
 */
export const MAX_FIELDS = 1000;

/** Longest multipart field value (metadata is the largest; a megabyte is far beyond it). */
const MAX_FIELD_BYTES = 1024 * 1024;

/** A body that cannot be read: one sentence for every cause, ending with the parser's or the socket's own words. */
function unreadable(kind: 'multipart' | 'request', detail: string): ParamError {
  return new ParamError(`The ${kind} body could not be read: ${detail.replace(/\.$/, '')}.`);
}

function namelessFile(filename: string): ParamError {
  const file = filename ? ` (file name ${quoteInput(filename)})` : '';
  return new ParamError(`A file part of the multipart body has no name${file}; send each file under its parameter's name, e.g. image or images[0].`);
}

/**
 * Ends reading a body that is refused or broken: the parser (if any) is detached and the rest of the body is read and
 * thrown away, so that the answer can be written and the connection reused; the server's request timeout bounds how
 * long a client may keep sending. A request already destroyed (the client went away) has nothing left to drain.
 */
function stopReading(req: IncomingMessage): void {
  req.unpipe();
  if (req.destroyed) return;
  req.resume();
}

/**
 * Watches the request itself: a client that disconnects or resets mid-body makes `req` emit `error` (ECONNRESET) or
 * close before it completes. Either way the call cannot go on, and the reader's promise must still settle.
 */
function onBodyBroken(req: IncomingMessage, fail: (error: Error) => void, kind: 'multipart' | 'request'): void {
  // Authentication runs before the body is read: a client may have gone already, and `close` will not come again.
  if (req.destroyed && !req.complete) fail(unreadable(kind, 'the connection closed before the body was complete'));
  req.on('error', (error: Error) => fail(unreadable(kind, error.message || 'the connection failed')));
  req.on('close', () => {
    if (!req.complete) fail(unreadable(kind, 'the connection closed before the body was complete'));
  });
}

function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      stopReading(req);
      reject(error);
    };
    onBodyBroken(req, fail, 'request');
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) fail(new PayloadTooLargeError(limit));
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
  });
}

function declaredLength(req: IncomingMessage): number | null {
  const header = req.headers['content-length'];
  return header === undefined ? null : Number(header);
}

interface MultipartContent {
  /** The first MAX_FIELDS fields; `fieldCount` says how many were sent. */
  fields: Array<[string, string]>;
  fieldCount: number;
  files: UploadedFile[];
}

/**
 * Multipart bodies are streamed through busboy, chunked or not. Each file is held in memory up to the per-file limit
 * (the worker needs the whole image anyway); the whole body is bounded by the request limit.
 *
 * Every stream involved (the request, the parser, each file part) has its `error` handled: busboy reports a body cut
 * off inside a file part on that part's stream too, and an unhandled stream error ends the whole process. Whatever
 * happens, the promise settles exactly once, with the content or with a ParamError/PayloadTooLargeError.
 *
 * Files and fields past the limits are counted but not kept, so the refusal can say how many were sent.
 */
function readMultipart(req: IncomingMessage, limits: BodyLimits, maxFiles: number): Promise<MultipartContent> {
  return new Promise((resolve, reject) => {
    const fields: Array<[string, string]> = [];
    const files: UploadedFile[] = [];
    const pendingFiles: Array<Promise<void>> = [];
    let fileCount = 0;
    let fieldCount = 0;
    let total = 0;
    let sawAnyByte = false;
    let settled = false;
    let parser: busboy.Busboy | undefined;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      files.length = 0;
      stopReading(req);
      // Destroyed on the next tick, not now: `fail` may run inside busboy's own write or inside a `data` event whose
      // remaining listener (the pipe) still writes this chunk to the parser.
      process.nextTick(() => parser?.destroy());
      reject(error);
    };
    const succeed = () => {
      if (settled) return;
      if (fileCount > maxFiles) return fail(new ParamError(`At most ${maxFiles} files may be sent per request; ${fileCount} were sent.`));
      settled = true;
      resolve({ fields, fieldCount, files });
    };
    try {
      parser = busboy({
        // Mail-style unquoted boundaries (`boundary====…==`) are quoted first: busboy refuses them (content-type.ts).
        headers: { ...req.headers, 'content-type': withQuotedBoundary(req.headers['content-type']) },
        // Files and fields are counted here rather than by busboy, which silently skips the parts past its limits.
        limits: { fileSize: limits.maxFileBytes, fieldSize: MAX_FIELD_BYTES },
        defParamCharset: 'utf8',
        // The multipart file name is the default collection path (docs/protocol.md §7), folders included.
        preservePath: true,
      });
    } catch (error) {
      req.resume();
      reject(unreadable('multipart', (error as Error).message));
      return;
    }
    onBodyBroken(req, fail, 'multipart');
    req.on('data', (chunk: Buffer) => {
      sawAnyByte = true;
      total += chunk.length;
      if (total > limits.maxBodyBytes) fail(new PayloadTooLargeError(limits.maxBodyBytes));
    });
    // busboy reports a part whose Content-Disposition has no name, or `name=""`, with the name undefined (its types
    // say string). A nameless value can be no parameter, so it is counted but not kept; a nameless file is refused,
    // since a client that sent one meant it as an input and would otherwise be told the image is missing. busboy
    // reports a part with `filename=""` as a field, so a nameless "field" with a content type of its own (a file's,
    // not text/plain) is a nameless file too.
    parser.on('field', (name: string | undefined, value, info) => {
      if (!name && info.mimeType !== 'text/plain') return fail(namelessFile(''));
      // busboy cuts an over-long value silently; acting on the cut text would be acting on another input.
      if (info.valueTruncated) return fail(new ParamError(`${name || 'A field without a name'}: the value is longer than ${MAX_FIELD_BYTES} bytes.`));
      fieldCount += 1;
      if (name && fieldCount <= MAX_FIELDS) fields.push([name, value]);
    });
    parser.on('file', (name: string | undefined, stream, info) => {
      // Errors of a part (the body ended inside it) also reach the parser, which fails the call; this listener only
      // keeps the part's own `error` event from being unhandled.
      stream.on('error', () => undefined);
      if (!name) {
        stream.resume();
        return fail(namelessFile(info.filename ?? ''));
      }
      fileCount += 1;
      if (fileCount > maxFiles || settled) {
        stream.resume();
        return;
      }
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
      // An empty chunked body is as valid as Content-Length 0: "no parameters" (docs/protocol.md §2).
      if (!sawAnyByte) succeed();
      else fail(unreadable('multipart', error.message));
    });
    parser.on('close', () => {
      void Promise.all(pendingFiles).then(succeed);
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

/** Pairs in an urlencoded text, counted without parsing it (URLSearchParams would build every pair first). */
function pairCount(text: string): number {
  let count = 0;
  let from = 0;
  while (from <= text.length) {
    const end = text.indexOf('&', from);
    const stop = end < 0 ? text.length : end;
    // URLSearchParams skips empty segments (`a=1&&b=2`), so they are not parameters.
    if (stop > from) count += 1;
    from = stop + 1;
  }
  return count;
}

function checkFieldCount(count: number): void {
  if (count > MAX_FIELDS) throw new ParamError(`At most ${MAX_FIELDS} parameters may be sent per request; ${count} were sent.`);
}

/** Reads the query string and the body (multipart, chunked or not; urlencoded; or none), bounded by the limits. */
export async function readRequest(req: IncomingMessage, limits: BodyLimits, options: ReadOptions = {}): Promise<RequestContent> {
  const fromQuery = queryPairs(req.url);
  const length = declaredLength(req);
  if (length !== null && length > limits.maxBodyBytes) throw new PayloadTooLargeError(limits.maxBodyBytes);
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  if (length === 0 || options.bodylessMethods?.includes((req.method ?? 'GET').toUpperCase())) {
    req.resume();
    checkFieldCount(fromQuery.length);
    return { pairs: fromQuery, files: [] };
  }
  if (contentType.startsWith('multipart/form-data')) {
    const body = await readMultipart(req, limits, options.maxFiles ?? 100);
    checkFieldCount(fromQuery.length + body.fieldCount);
    return { pairs: [...fromQuery, ...body.fields], files: body.files };
  }
  const raw = await readRaw(req, limits.maxBodyBytes);
  if (raw.length > 0 && (contentType.startsWith('application/x-www-form-urlencoded') || contentType === '')) {
    const text = raw.toString('utf8');
    checkFieldCount(fromQuery.length + pairCount(text));
    return { pairs: [...fromQuery, ...new URLSearchParams(text)], files: [] };
  }
  checkFieldCount(fromQuery.length);
  return { pairs: fromQuery, files: [] };
}

/** Merges query string and body into one Params, in arrival order. */
export async function readParams(req: IncomingMessage, limits: BodyLimits): Promise<Params> {
  const content = await readRequest(req, limits);
  return new Params(content.pairs, content.files);
}
