/**
 * Job names and payloads shared by the gateway (which enqueues) and the workers (which process). Payloads and results
 * are plain JSON: image bytes travel through the blob store, never through the queue.
 */
export const JobKind = {
  Ingest: 'ingest',
  Delete: 'delete',
  Fingerprint: 'fingerprint',
  Search: 'search',
  Compare: 'compare',
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
  /** wine and mobile refuse an existing path (specification 3); match replaces it (compatibility.md). */
  on_existing: 'refuse' | 'replace';
  /** Preferred smallest side of the stored normalised image (specification 8). */
  preferred_side: number;
  /** Options that only a service's ingest hooks read (e.g. color's ignore_background). */
  options?: Record<string, unknown>;
}

export interface IngestResult {
  errors: string[];
  added: string[];
  /** Seconds spent decoding and resizing, and fingerprinting and writing the index. */
  time_resize: number;
  time_add: number;
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

/** Why an image that decoded fine is still not searchable. */
export const NO_FEATURES_REASON = 'No distinctive features were found in the image.';
