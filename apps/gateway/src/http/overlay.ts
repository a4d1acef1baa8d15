import { AuthError } from '@loupe/envelope';
import { overlayKey } from '@loupe/jobs';
import type { BlobStore } from '@loupe/storage';
import type { IncomingMessage } from 'node:http';
import { AuthThrottledError, BasicAuthService } from './basic-auth.service';

/** Serves a rendered overlay (`overlay/<id>.jpg` relative to `{base}/<account>/rest/`) to the account that made it. */
export async function serveOverlay(
  auth: BasicAuthService,
  blobs: BlobStore,
  req: IncomingMessage,
  service: string,
  accountName: string,
  file: string,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer | string }> {
  try {
    const account = await auth.authenticate(accountName, req);
    const key = overlayKey(account.name, service, file.replace(/\.jpg$/, ''));
    const data = key ? await blobs.get(key) : null;
    if (!data) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'No such overlay.' };
    return { status: 200, headers: { 'content-type': 'image/jpeg', 'cache-control': 'private, max-age=86400' }, body: data };
  } catch (error) {
    if (error instanceof AuthThrottledError) {
      return { status: 429, headers: { 'retry-after': String(error.retryAfterSeconds), 'content-type': 'text/plain; charset=utf-8' }, body: error.message };
    }
    if (error instanceof AuthError) {
      return { status: 401, headers: { 'www-authenticate': 'Basic realm="Loupe", charset="UTF-8"', 'content-type': 'text/plain; charset=utf-8' }, body: error.message };
    }
    throw error;
  }
}
