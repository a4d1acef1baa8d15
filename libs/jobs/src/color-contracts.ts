import type { MetadataQuery, StoredPaletteColor } from '@loupe/storage';
import type { ReturnKey } from './color-metadata';

/**
 * Payloads and results of the color service's jobs (plain JSON, like every job). Colors travel as [r, g, b]; how a
 * color is written in the answer (rgb or hex, echo of the input form) is the gateway's business.
 */
export type JsonRgb = [number, number, number];

export interface ColorQueryColor {
  rgb: JsonRgb | 'wildcard';
  /** Percent of the query, 1-100. */
  weight: number;
}

/** An uploaded or downloaded query image staged in the blob store; `label` names it in messages. */
export interface StagedQueryImage {
  staged_key: string;
  label: string;
}

export interface BackgroundOptions {
  ignore_background: boolean;
  ignore_interior_background: boolean;
}

/** color_search: one query source (colors, a staged image or a collection path) or none (metadata only). */
export interface ColorSearchPayload extends BackgroundOptions {
  account_id: number;
  service: string;
  colors?: ColorQueryColor[];
  image?: StagedQueryImage;
  filepath?: string;
  metadata?: MetadataQuery;
  return_metadata: ReturnKey[];
  /** Items carry metadata and score_metadata (metadata or return_metadata was sent). */
  with_metadata: boolean;
  sort_metadata: boolean;
  min_score: number;
  name_filter?: string;
  path_filter?: string;
  offset: number;
  /** 0 = all. */
  limit: number;
}

export interface ColorSearchHit {
  filepath: string;
  score?: number;
  metadata?: Record<string, unknown>;
  score_metadata?: number;
}

export interface ColorSearchResult {
  errors: string[];
  hits: ColorSearchHit[];
  total_results: number;
  total_filtered_results: number;
  time_resize: number;
  time_search: number;
}

/** extract_image_colors / count_image_colors over staged images. */
export interface ColorImagesPayload extends BackgroundOptions {
  op: 'extract' | 'count';
  images: StagedQueryImage[];
  target_number_colors?: number;
  /** extract: colors kept after combining (0 = all). */
  limit: number;
  count_colors?: JsonRgb[];
}

export interface ColorPresenceCount {
  partial: number;
  full: number;
}

export interface ColorImagesResult {
  errors: string[];
  palette?: StoredPaletteColor[];
  counts?: ColorPresenceCount[];
  time_resize: number;
  /** Seconds extracting (extract) or counting (count). */
  time_work: number;
}

/** Which collection images an extraction or count covers (docs/protocol.md §7); all of them when empty. */
export interface ColorScope {
  metadata?: MetadataQuery;
  colors?: ColorQueryColor[];
  filepaths?: string[];
  min_score?: number;
}

export interface ColorCollectionPayload {
  account_id: number;
  service: string;
  op: 'extract' | 'count_colors' | 'count_metadata';
  scope: ColorScope;
  limit?: number;
  count_colors?: JsonRgb[];
  count_metadata?: MetadataQuery[];
}

export interface ColorCollectionResult {
  errors: string[];
  palette?: StoredPaletteColor[];
  counts?: ColorPresenceCount[];
  metadata_counts?: number[];
  time_work: number;
}

/** update_metadata: replaces the metadata of existing images (a write: one at a time per account). */
export interface ColorMetadataPayload {
  account_id: number;
  service: string;
  updates: Array<{ filepath: string; metadata: Record<string, unknown> }>;
}

export interface ColorMetadataResult {
  updated: string[];
}
