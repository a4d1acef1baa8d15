import type { MatchItem, SearchPayload } from '../contracts';

/**
 * Payloads and results of the wine service's jobs (docs/protocol.md §7, §8). Adds use the
 * common ingest job (with the wine label hook); searches and extractions are read jobs of their own kinds.
 */

/** docs/protocol.md §9: the wine service's preferred smallest image side (search and add). */
export const WINE_PREFERRED_SIDE = 1000;

/** Label metadata as stored and answered: the fields of docs/protocol.md §8, all optional but the text lists. */
export type WineLabelMetadata = Record<string, unknown> & { text_lines?: string[]; text_tokens?: string[] };


/** Wine search takes the matching engine's search payload; the worker widens the window it asks the engine for. */
export type WineSearchPayload = SearchPayload;

/** An item of a wine search (docs/protocol.md §8). */
export interface WineMatchItem extends MatchItem {
  score_text?: number;
  metadata: WineLabelMetadata;
}

export interface WineSearchResult {
  query_filepath: string;
  query_metadata: WineLabelMetadata;
  items: WineMatchItem[];
  total_results: number;
  total_filtered_results: number;
  time_resize: number;
  time_detect_label: number;
  time_extract_text: number;
  time_compare_text: number;
  time_search: number;
}

export interface WineExtractPayload {
  account_id: number;
  service: string;
  /** `metadata` for extract_metadata, `text` for extract_text. */
  op: 'metadata' | 'text';
  images: Array<{ staged_key: string; label: string }>;
  preferred_side: number;
}

export interface WineExtractResult {
  /** One entry per image that had a readable label, in input order. */
  items: Array<{ filepath: string; metadata: WineLabelMetadata }>;
  errors: string[];
  time_resize: number;
  time_detect_label: number;
  time_extract_text: number;
}
