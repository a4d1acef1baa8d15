import type { RateLimiter } from '@loupe/auth';
import { inputLabel, ParamError, Params, quoteInput } from '@loupe/envelope';
import { JobKind, PUBLIC_FORMATS, runJob, PUBLIC_SORT_KEYS, PublicSearchPayload, PublicSortKey, publicOverlayKey, stagingKey } from '@loupe/jobs';
import { sniffFormat } from '@loupe/imaging';
import type { JobQueue } from '@loupe/queue';
import type { ApiKeyRow, BlobStore, PublicApiRepository, PublicIndexRepository, SearchBlockRow } from '@loupe/storage';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DownloadError, UrlDownloader } from '../inputs/url-fetcher';
import { ApiError } from './api-envelope';

/** Matches per page unless `limit` says otherwise (the public clients send 10 themselves). */
export const DEFAULT_API_LIMIT = 10;
/** Largest page: every match of a page gets an overlay rendered, so a page is bounded. */
export const MAX_API_LIMIT = 100;
/** Lifetime of an overlay link: long enough to look at the results, short enough that links do not circulate. */
export const OVERLAY_TTL_SECONDS = 3600;
/** Hex digits of an overlay token's MAC: 128 bits. */
const OVERLAY_MAC_HEX = 32;

export interface ApiCall {
  key: ApiKeyRow;
  params: Params;
  /** Aborted when the caller disconnects; a download for it stops. */
  signal?: AbortSignal;
}

/** Blocks are reported as `YYYY-MM-DD HH:MM:SS UTC` (docs/protocol.md §5). */
export function utcText(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

function overlayMac(privateKey: string, id: string, expires: number): string {
  return createHmac('sha256', privateKey).update(`overlay:${id}:${expires}`).digest('hex').slice(0, OVERLAY_MAC_HEX);
}

function quotaError(reason: 'exhausted' | 'expired' | 'not_started' | 'none', block: SearchBlockRow | null): ApiError {
  switch (reason) {
    case 'exhausted':
      return new ApiError(403, 'NO_SEARCHES_REMAINING', `All ${block?.searches ?? 0} searches of the current block are used (block valid until ${block ? utcText(block.expire_date) : '-'}). Add a search block to continue.`);
    case 'expired':
      return new ApiError(403, 'SEARCH_BLOCK_EXPIRED', `The search block expired on ${utcText(block!.expire_date)}; ${block!.remaining} unused searches lapsed with it. Add a search block to continue.`);
    case 'not_started':
      return new ApiError(403, 'SEARCH_BLOCK_NOT_STARTED', `The search block starts on ${utcText(block!.start_date)}.`);
    default:
      return new ApiError(403, 'NO_SEARCH_BLOCK', 'This account has no search block; searches need one.');
  }
}

/**
 * The public index operations: search (rate limit, quota, input staging, a read job per search grouped by API key),
 * image_count and remaining_searches, and the overlay images that search results link to.
 */
export class PublicApiService {
  constructor(
    private readonly api: PublicApiRepository,
    private readonly index: PublicIndexRepository,
    private readonly queue: JobQueue,
    private readonly blobs: BlobStore,
    private readonly rateLimiter: RateLimiter,
    private readonly options: { ratePerMinute: number; downloader: UrlDownloader },
  ) {}

  async imageCount(_call: ApiCall): Promise<number> {
    return this.index.imageCount();
  }

  /**
   * The flat fields of older clients (the block searches draw from now, or the latest one), and for newer clients
   * (docs/protocol.md §5) every block not yet expired as `bundles[]`, in start
   * order, with `total_remaining_searches` their sum: searches bought for later count as remaining.
   */
  async remainingSearches(call: ApiCall): Promise<{ results: unknown; messages: string[] }> {
    const now = new Date();
    const [{ active, latest }, blocks] = await Promise.all([this.api.currentBlock(call.key.account_id, now), this.api.listBlocks(call.key.account_id)]);
    const bundles = blocks
      .filter((b) => b.expire_date.getTime() > now.getTime())
      .map((b) => ({ remaining_searches: b.remaining, start_date: utcText(b.start_date), expire_date: utcText(b.expire_date) }));
    const total = bundles.reduce((sum, b) => sum + b.remaining_searches, 0);
    const block = active ?? latest;
    if (!block) {
      return {
        results: { remaining_searches: 0, start_date: null, expire_date: null, bundles, total_remaining_searches: total },
        messages: ['This account has no search block.'],
      };
    }
    return {
      results: {
        remaining_searches: active ? active.remaining : 0,
        start_date: utcText(block.start_date),
        expire_date: utcText(block.expire_date),
        bundles,
        total_remaining_searches: total,
      },
      messages: [],
    };
  }

  async search(call: ApiCall): Promise<{ results: unknown; messages: string[] }> {
    const { params, key } = call;
    const options = {
      offset: params.int('offset', { default: 0, min: 0 })!,
      limit: params.int('limit', { default: DEFAULT_API_LIMIT, min: 1, max: MAX_API_LIMIT })!,
      sort: (params.string('sort') ?? 'score') as PublicSortKey,
      order: (params.string('order') ?? 'desc').toLowerCase() as 'asc' | 'desc',
    };
    if (!PUBLIC_SORT_KEYS.includes(options.sort)) throw new ParamError(`sort: ${quoteInput(options.sort)} is not one of ${PUBLIC_SORT_KEYS.join(', ')}.`);
    if (options.order !== 'asc' && options.order !== 'desc') throw new ParamError(`order: ${quoteInput(options.order)} is not asc or desc.`);
    const upload = params.file('image_upload');
    const imageUrl = params.string('image_url');
    if (!upload && imageUrl === undefined) throw new ParamError('Please give an image to search for: upload it as image_upload or give its image_url.');
    if (upload && imageUrl !== undefined) throw new ParamError('Please give either image_upload or image_url, not both.');

    const rate = await this.rateLimiter.take(`search:${key.public_key}`, this.options.ratePerMinute);
    if (!rate.allowed) {
      throw new ApiError(
        429,
        'SEARCH_RATE_EXCEEDED',
        `Warning: more than ${this.options.ratePerMinute} searches per minute were sent with this API key; this search was not run or charged. Send one search at a time, wait for each answer, and retry in ${rate.retryAfterSeconds} s.`,
        { 'retry-after': String(rate.retryAfterSeconds) },
      );
    }
    // Refuse early, before downloading anything, when no block could pay; the charge below is the atomic check.
    const { active, latest } = await this.api.currentBlock(key.account_id);
    if (!active) throw quotaError(latest ? (latest.expire_date.getTime() <= Date.now() ? 'expired' : latest.start_date.getTime() > Date.now() ? 'not_started' : 'exhausted') : 'none', latest);

    const label = inputLabel(upload ? upload.filename || 'image_upload' : imageUrl!);
    const data = upload ? upload.data : await this.download(imageUrl!, call);
    const format = sniffFormat(data);
    if (!format || !PUBLIC_FORMATS.has(format)) {
      throw new ApiError(400, 'BAD_REQUEST', `${label}: Image cannot be identified; accepted formats are JPEG, PNG and GIF.`);
    }
    const charge = await this.api.chargeSearch(key.account_id);
    if (!charge.ok) throw quotaError(charge.reason, charge.block);
    const staged = stagingKey();
    try {
      await this.blobs.put(staged, data);
      const payload: PublicSearchPayload = { query: { staged_key: staged, label }, ...options };
      const result = await runJob(this.queue, { kind: JobKind.PublicSearch, group: `api:${key.public_key}`, payload });
      const expires = Math.floor(Date.now() / 1000) + OVERLAY_TTL_SECONDS;
      return {
        results: {
          total_results: result.total_results,
          total_backlinks: result.total_backlinks,
          matches: result.matches.map(({ overlay_id, ...match }) => ({
            ...match,
            overlay: overlay_id ? `overlay/${key.public_key}/${overlay_id}.${expires}.${overlayMac(key.private_key, overlay_id, expires)}.jpg` : '',
          })),
        },
        messages: [],
      };
    } catch (error) {
      // A search that produced no answer is not charged; the worker deletes the staged bytes when it ran.
      await this.api.refundSearch(charge.blockId);
      await this.blobs.delete(staged).catch(() => undefined);
      throw error;
    }
  }

  /**
   * An overlay link from a search result: `overlay/<api_key>/<id>.<expires>.<mac>.jpg`. The MAC is keyed with the
   * API key's private key, so only the key that searched can have made the link, and it stops working at `expires`.
   */
  async overlay(publicKey: string, file: string): Promise<Buffer | null> {
    const match = /^([0-9a-f-]{36})\.(\d{1,12})\.([0-9a-f]+)\.jpg$/.exec(file);
    if (!match) return null;
    const [, id, expiresText, mac] = match;
    const expires = Number(expiresText);
    if (expires < Date.now() / 1000 || mac.length !== OVERLAY_MAC_HEX) return null;
    const key = await this.api.findKey(publicKey);
    if (!key) return null;
    const expected = Buffer.from(overlayMac(key.private_key, id, expires), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(mac, 'hex'))) return null;
    const blobKey = publicOverlayKey(id);
    return blobKey ? this.blobs.get(blobKey) : null;
  }

  /** Downloads counted per account, as the collection services' are; any failure is BAD_REQUEST (docs/protocol.md §5). */
  private async download(url: string, call: ApiCall): Promise<Buffer> {
    try {
      return await this.options.downloader.download(url, { owner: call.key.account, signal: call.signal });
    } catch (error) {
      if (error instanceof DownloadError) throw new ApiError(400, 'BAD_REQUEST', `${inputLabel(url)}: Download failed (${error.reason ?? 'connection error'}).`);
      throw error;
    }
  }
}
