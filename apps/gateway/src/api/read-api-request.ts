import type { IncomingMessage } from 'node:http';
import type { UploadedFile } from '@loupe/envelope';
import { multipartBoundary } from '../http/content-type';
import { BodyLimits, readRequest } from '../http/read-params';

/**
 * A public API request as the signature sees it: every parameter pair exactly as received (query string, then
 * body fields), the uploaded files, and the multipart boundary from Content-Type as sent (quoted or not).
 */
export interface ApiRequestData {
  method: string;
  pairs: Array<[string, string]>;
  files: UploadedFile[];
  boundary?: string;
}

/** Reads query string and body (multipart, urlencoded or none), keeping the raw pairs the signature covers. */
export async function readApiRequest(req: IncomingMessage, limits: BodyLimits): Promise<ApiRequestData> {
  const method = (req.method ?? 'GET').toUpperCase();
  // At most 10 file parts: a search takes one image; the bound keeps a hostile body from holding many in memory.
  const content = await readRequest(req, limits, { bodylessMethods: ['GET', 'HEAD'], maxFiles: 10 });
  return { method, pairs: content.pairs, files: content.files, boundary: multipartBoundary(req.headers['content-type']) };
}
