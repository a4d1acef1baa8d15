import type { BlobStore, CollectionRef, WineLabelRepository } from '@loupe/storage';
import { InputRefusedError, unreadableUploadMessage } from '../contracts';
import type { MatchService } from '../match/match.service';
import { pathPredicate } from '../match/path-filter';
import { missingMessage } from '../match/query-loader';
import { Stopwatch } from '../stopwatch';
import type { WineLabelMetadata, WineMatchItem, WineSearchPayload, WineSearchResult } from './contracts';
import { loadLabelImage, readableSize } from './label-image';
import type { WineLabelReader } from './label-reader';
import { matchMetadata, rankByLabel, TEXT_SCORED_RESULTS, textOnlyMatches } from './ranking';

interface QueryLabel {
  metadata: WineLabelMetadata;
  time_resize: number;
  time_detect_label: number;
  time_extract_text: number;
}

/**
 * Wine search (docs/protocol.md §7): the matching engine finds the collection images of the same label; the query's
 * label is read meanwhile (OCR runs in worker threads while matching holds this one). Collection labels whose words
 * agree closely with the query's join as matches of image score 0 when the image check missed them (a label wrapped
 * round a bottle); image and text matches are then ranked together by image score, agreement of their stored label
 * text with the query's and of vintage and variety (ranking.ts), and each match carries its label metadata under the
 * vintage rules of docs/protocol.md §8.
 */
export class WineSearchService {
  constructor(
    private readonly matching: MatchService,
    private readonly reader: WineLabelReader,
    private readonly labels: WineLabelRepository,
    private readonly blobs: BlobStore,
  ) {}

  async search(payload: WineSearchPayload): Promise<WineSearchResult> {
    const ref: CollectionRef = { accountId: payload.account_id, service: payload.service };
    const { offset, limit } = payload.options;
    // The engine deletes a staged query when it is done: take the bytes for the label first.
    const bytes = 'staged_key' in payload.query ? await this.blobs.get(payload.query.staged_key) : null;
    // Re-ordering moves results within the text-scored top, so the engine is asked for at least all of it.
    const window = limit === 0 ? 0 : Math.max(offset + limit, TEXT_SCORED_RESULTS);
    const [matched, query] = await Promise.all([
      this.matching.search({ ...payload, options: { ...payload.options, offset: 0, limit: window } }),
      this.queryLabel(ref, payload, bytes),
    ]);

    const compareWatch = new Stopwatch().start();
    const allowed = pathPredicate(payload.options);
    const byText = textOnlyMatches(
      (await this.labels.allTokens(ref)).filter((l) => !allowed || allowed(l.filepath)),
      query.metadata,
      new Set(matched.items.map((i) => i.filepath)),
    );
    const candidates = [...matched.items, ...byText];
    const stored = await this.labels.byPaths(ref, candidates.map((i) => i.filepath));
    const ranked = rankByLabel(
      candidates.map((item) => ({ item, label: stored.get(item.filepath)?.metadata ?? {} })),
      query.metadata,
    );
    const page = limit > 0 ? ranked.slice(offset, offset + limit) : ranked.slice(offset);
    const items: WineMatchItem[] = page.map(({ item }) => ({
      ...item,
      metadata: matchMetadata(stored.get(item.filepath)?.metadata ?? {}, query.metadata, stored.get(item.filepath)?.image_id ?? null),
    }));
    const timeCompareText = compareWatch.stop();
    return {
      query_filepath: matched.query_filepath,
      query_metadata: query.metadata,
      items,
      total_results: matched.total_results + byText.length,
      total_filtered_results: matched.total_filtered_results + byText.length,
      time_resize: round6(matched.time_resize + query.time_resize),
      time_detect_label: query.time_detect_label,
      time_extract_text: query.time_extract_text,
      time_compare_text: timeCompareText,
      time_search: matched.time_search,
    };
  }

  /** The query's label metadata: read from the photo, or as stored for a collection image. */
  private async queryLabel(ref: CollectionRef, payload: WineSearchPayload, bytes: Buffer | null): Promise<QueryLabel> {
    const source = payload.query;
    if ('filepath' in source) {
      const row = (await this.labels.byPaths(ref, [source.filepath])).get(source.filepath);
      if (!row) throw new InputRefusedError(missingMessage(source.filepath));
      return { metadata: row.metadata, time_resize: 0, time_detect_label: 0, time_extract_text: 0 };
    }
    if (bytes === null) throw new InputRefusedError(unreadableUploadMessage(source.label));
    const resizeWatch = new Stopwatch().start();
    const img = await loadLabelImage(bytes, source.label, payload.preferred_side);
    resizeWatch.stop();
    if (!readableSize(img)) return { metadata: { text_lines: [], text_tokens: [] }, time_resize: resizeWatch.elapsed, time_detect_label: 0, time_extract_text: 0 };
    const reading = await this.reader.read(img);
    return { metadata: reading.metadata, time_resize: resizeWatch.elapsed, time_detect_label: reading.time_detect_label, time_extract_text: reading.time_extract_text };
  }
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}
