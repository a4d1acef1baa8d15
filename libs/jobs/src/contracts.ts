import type { Rect } from '@loupe/fingerprint';
import type { StepTimes } from './step-timer';
/**
 * Job names and payloads shared by the gateway (which enqueues) and the workers (which process). Payloads and results
 * are plain JSON: image bytes travel through the blob store, never through the queue.
 */
export const JobKind = {
  Ingest: 'ingest',
  /**
   * One image of an add prepared (decoded, normalised, fingerprinted, analysed, blobs written) by any worker, for the
   * add's ingest job to commit (INGEST_FAN_OUT; payload in ingest-planning.ts). Not a write: it changes no collection.
   */
  IngestPrepare: 'ingest_prepare',
  Delete: 'delete',
  Fingerprint: 'fingerprint',
  Search: 'search',
  Compare: 'compare',
  /** Color service (payloads in color-contracts.ts): searches, extractions and counts are reads; metadata updates writes. */
  ColorSearch: 'color_search',
  ColorImages: 'color_images',
  ColorCollection: 'color_collection',
  ColorMetadata: 'color_metadata',
  /** Wine service (payloads in wine/contracts.ts): label search, and label metadata or text of given images; reads. */
  WineSearch: 'wine_search',
  WineExtract: 'wine_extract',
  /** Public index API (payloads in public-index/contracts.ts): a signed search of the shared index; a read. */
  PublicSearch: 'public_search',
} as const;
export type JobKind = (typeof JobKind)[keyof typeof JobKind];

export const ALL_JOB_KINDS: readonly JobKind[] = Object.values(JobKind);

export interface IngestItem {
  /** Collection path the image is stored under. */
  filepath: string;
  image_id: string | null;
  /** Blob key of the uploaded or downloaded bytes, staged by the gateway. */
  staged_key: string;
  /** Service-specific metadata stored with the image (color keyword metadata); empty when absent. */
  metadata?: Record<string, unknown>;
}

export interface IngestPayload {
  account_id: number;
  account: string;
  service: string;
  items: IngestItem[];
  /** wine and mobile refuse an existing path; match and color replace it (docs/protocol.md §7). */
  on_existing: 'refuse' | 'replace';
  /** Preferred smallest side of the stored normalised image (docs/protocol.md §9). */
  preferred_side: number;
  /** Remove solid-color borders before fingerprinting (docs/protocol.md §8: rectangles refer to the cropped image). */
  crop_borders?: boolean;
  /** Options that only a service's ingest hooks read (e.g. color's ignore_background). */
  options?: Record<string, unknown>;
}

export interface IngestResult {
  errors: string[];
  added: string[];
  /** Seconds spent decoding and resizing, and fingerprinting and writing the index. */
  time_resize: number;
  time_add: number;
  /** Seconds of service-specific stages, by stats field (wine: time_detect_label); see IngestHook.stat. */
  stage_times: Record<string, number>;
}

export interface DeletePayload {
  account_id: number;
  service: string;
  filepaths: string[];
}

export interface DeleteResult {
  deleted: string[];
}

export interface FingerprintPayload {
  account_id: number;
  service: string;
  /** Paths to recompute; all of the collection when absent. */
  filepaths?: string[];
}

export interface FingerprintResult {
  updated: number;
  failed: string[];
}

/** The answer for an input whose staged upload is gone when its job reads it (`label`: its path or its field). */
export function unreadableUploadMessage(label: string): string {
  return `${label}: The uploaded file could not be read back; please send it again.`;
}


/** A query image: bytes staged by the gateway (upload or URL), or an image already in the collection. */
export type QuerySource =
  | { staged_key: string; label: string }
  | { filepath: string };

/** Percent rectangle of docs/protocol.md §8, as the matching engine computes it. */
export type { Rect };

/** A match item (docs/protocol.md §8), as computed by the matching engine. */
export interface MatchItem {
  filepath: string;
  score: number;
  match_percent: number;
  query_overlap_percent: number;
  target_overlap_percent: number;
  query_match_rect: Rect;
  target_match_rect: Rect;
  overlay?: string;
  score_enhanced?: number;
  compare_color?: { color_percent_diff: number; query_colors_diff: ColorDiff[]; target_colors_diff: ColorDiff[] };
  score_color?: number;
}

export interface ColorDiff {
  color: number[];
  class: string;
}

export interface MatchOptions {
  min_score: number;
  check_horizontal_flip: boolean;
  generate_overlay: boolean;
}

export interface SearchPayload {
  account_id: number;
  account: string;
  service: string;
  query: QuerySource;
  preferred_side: number;
  options: MatchOptions & { offset: number; limit: number; name_filter?: string; path_filter?: string };
}

export interface SearchResult {
  query_filepath: string;
  items: MatchItem[];
  total_results: number;
  total_filtered_results: number;
  time_resize: number;
  time_search: number;
  /** Where the search's time went, per step (the worker's log line and step histogram; not in the envelope). */
  steps?: StepTimes;
}

export interface ComparePayload {
  account_id: number;
  account: string;
  service: string;
  first: QuerySource;
  second: QuerySource;
  preferred_side: number;
  options: MatchOptions & { compute_enhanced_score: boolean; compare_color: boolean };
}

export interface CompareResult {
  query_filepath: string;
  items: MatchItem[];
  time_resize: number;
  time_compare: number;
}

/**
 * Codes of processor errors that are the caller's fault (a query too small, a corrupt upload): the gateway answers
 * them with a `fail` envelope, not a server error.
 */
export const INPUT_REFUSED = 'INPUT_REFUSED';

export class InputRefusedError extends Error {
  readonly code = INPUT_REFUSED;
  constructor(message: string) {
    super(message);
    this.name = 'InputRefusedError';
  }
}
