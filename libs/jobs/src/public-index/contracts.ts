/** Job payloads and results of the public index API (area B), shared by the gateway and the search workers. */

export interface PublicSearchPayload {
  /** Staged query bytes (upload or downloaded `image_url`) and how to name them in messages. */
  query: { staged_key: string; label: string };
  offset: number;
  /** 0 = every match. */
  limit: number;
  sort: PublicSortKey;
  order: 'asc' | 'desc';
}

export type PublicSortKey = 'score' | 'size' | 'crawl_date';
export const PUBLIC_SORT_KEYS: readonly PublicSortKey[] = ['score', 'size', 'crawl_date'];

export interface PublicBacklinkItem {
  url: string;
  backlink: string;
  crawl_date: string | null;
}

/** One match of the long-standing public format; `overlay_id` is turned into a signed overlay path by the gateway. */
export interface PublicMatch {
  image_url: string;
  domain: string;
  score: number;
  width: number;
  height: number;
  size: number;
  format: string;
  filesize: number;
  overlay_id: string;
  backlinks: PublicBacklinkItem[];
}

export interface PublicSearchResult {
  total_results: number;
  total_backlinks: number;
  matches: PublicMatch[];
  time_resize: number;
  time_search: number;
}

/**
 * Error codes of refused public searches, carried through the queue to the gateway, which answers them with the
 * error names of docs/protocol.md §5.
 */
export const PublicSearchError = {
  /** The file is corrupt or not JPEG, PNG or GIF (or animated): BAD_REQUEST. */
  BadImage: 'PUBLIC_BAD_IMAGE',
  /** Too small, too plain, or too few features to make a signature: NO_SIGNATURE_ERROR. */
  NoSignature: 'PUBLIC_NO_SIGNATURE',
} as const;
export type PublicSearchErrorCode = (typeof PublicSearchError)[keyof typeof PublicSearchError];

export class PublicSearchRefusedError extends Error {
  constructor(
    readonly code: PublicSearchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'PublicSearchRefusedError';
  }
}
