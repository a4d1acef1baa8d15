import { MAX_CALL_TIMEOUT_MS } from '@loupe/queue';

/** docs/protocol.md §4: images or URLs per add/update request. */
export const MAX_IMAGES_PER_REQUEST = 10;
/** docs/protocol.md §7: image_id length. */
export const MAX_IMAGE_ID_LENGTH = 255;
/** Collection paths are keys shown back to users; a bound keeps indexes and messages sane. */
export const MAX_FILEPATH_LENGTH = 1024;
/** docs/protocol.md §4: paths per get_info / get_metadata (and, by the same reasoning, delete). */
export const MAX_PATHS_PER_REQUEST = 10;
/** docs/protocol.md §6: `list` returns 20 paths unless asked otherwise. */
export const DEFAULT_LIST_LIMIT = 20;
/** Search results per page unless `limit` says otherwise (docs/protocol.md §7). */
export const DEFAULT_SEARCH_LIMIT = 10;
/** docs/protocol.md §7: colors returned by extractions unless `limit` says otherwise. */
export const DEFAULT_EXTRACT_LIMIT = 32;
/** docs/protocol.md §4: colors per search. */
export const MAX_QUERY_COLORS = 5;
/** Maximum `timeout` a caller may ask for: a day, longer than any job should ever wait. */
export const MAX_TIMEOUT_SECONDS = MAX_CALL_TIMEOUT_MS / 1000;
/**
 * Default `min_score` of a color search by image, path, URL or colors (issue 14): a teal query listed an unrelated
 * purple image at 2.99 when the default was 0. On the color benchmark (tools/bench/color, docs/benchmarks.md) palettes
 * with no color within ΔE 20 of the query score p50 6.5 (max 29), while palettes holding a one-color query's color on
 * a quarter of their area score at least 18.7 and planted answers at least 89: 15 hides 89.5 % of the unrelated hits
 * and keeps every related one. `min_score=0` still lists everything.
 */
export const DEFAULT_COLOR_MIN_SCORE = 15;
