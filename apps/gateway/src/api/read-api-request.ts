import busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import { ParamError, PayloadTooLargeError, UploadedFile } from '@loupe/envelope';
import type { BodyLimits } from '../http/read-params';

/**
 * A public API request as the signature sees it: every parameter pair exactly as received (query string, then
 * body fields), the uploaded files, and the multipart boundary from Content-Type.
 */
export interface ApiRequestData {
  method: string;
  pairs: Array<[string, string]>;
  files: UploadedFile[];
  boundary?: string;
}

export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  return match ? (match[1] ?? match[2]) : undefined;
}

function queryPairs(url: string | undefined): Array<[string, string]> {
  const at = url?.indexOf('?') ?? -1;
  return !url || at < 0 ? [] : [...new URLSearchParams(url.slice(at + 1))];
}

function readMultipart(req: IncomingMessage, limits: BodyLimits): Promise<{ fields: Array<[string, string]>; files: UploadedFile[] }> {
  return new Promise((resolve, reject) => {
    const fields: Array<[string, string]> = [];
    const files: UploadedFile[] = [];
    const pending: Array<Promise<void>> = [];
    let total = 0;
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
      parser = busboy({ headers: req.headers, limits: { fileSize: limits.maxFileBytes, files: 10, fields: 100 }, defParamCharset: 'utf8' });
    } catch (error) {
      reject(new ParamError(`The multipart body could not be read: ${(error as Error).message}.`));
      return;
    }
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.maxBodyBytes) fail(new PayloadTooLargeError(limits.maxBodyBytes));
    });
    parser.on('field', (name, value) => fields.push([name, value]));
    parser.on('file', (name, stream, info) => {
      const parts: Buffer[] = [];
      const file: UploadedFile = { field: name, filename: info.filename ?? '', data: Buffer.alloc(0), contentType: info.mimeType };
      files.push(file);
      stream.on('data', (d: Buffer) => parts.push(d));
      stream.on('limit', () => fail(new PayloadTooLargeError(limits.maxFileBytes)));
      pending.push(new Promise<void>((done) => stream.on('close', () => ((file.data = Buffer.concat(parts)), done()))));
    });
    parser.on('error', (error: Error) => (total === 0 ? resolve({ fields, files }) : fail(new ParamError(`The multipart body could not be read: ${error.message}.`))));
    parser.on('close', () => void Promise.all(pending).then(() => !failed && resolve({ fields, files })));
    req.pipe(parser);
  });
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

/** Reads query string and body (multipart, urlencoded or none), keeping the raw pairs the signature covers. */
export async function readApiRequest(req: IncomingMessage, limits: BodyLimits): Promise<ApiRequestData> {
  const method = (req.method ?? 'GET').toUpperCase();
  const fromQuery = queryPairs(req.url);
  const declared = req.headers['content-length'] === undefined ? null : Number(req.headers['content-length']);
  if (declared !== null && declared > limits.maxBodyBytes) throw new PayloadTooLargeError(limits.maxBodyBytes);
  const contentType = req.headers['content-type'] ?? '';
  if (declared === 0 || method === 'GET' || method === 'HEAD') {
    req.resume();
    return { method, pairs: fromQuery, files: [] };
  }
  if (/^multipart\/form-data/i.test(contentType)) {
    const body = await readMultipart(req, limits);
    return { method, pairs: [...fromQuery, ...body.fields], files: body.files, boundary: multipartBoundary(contentType) };
  }
  const raw = await readRaw(req, limits.maxBodyBytes);
  if (raw.length > 0 && (/^application\/x-www-form-urlencoded/i.test(contentType) || contentType === '')) {
    return { method, pairs: [...fromQuery, ...new URLSearchParams(raw.toString('utf8'))], files: [] };
  }
  return { method, pairs: fromQuery, files: [] };
}
