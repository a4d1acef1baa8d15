import type { Queryable, WineLabelRepository } from '@loupe/storage';
import type { IngestHook, IngestHookInput } from '../ingest.service';
import type { WineLabelMetadata } from './contracts';
import type { WineLabelReader } from './label-reader';
import { readableSize } from './label-image';

/**
 * Reads the label of an added wine image (outside the transaction) and stores its metadata with the image (inside
 * it). Every image gets a row, empty when no label was read, so a search always finds the collection side's text.
 * The seconds each item spent are kept by staging key for the wine ingest to report (time_detect_label).
 */
export class WineLabelHook implements IngestHook<WineLabelMetadata> {
  private readonly timings = new Map<string, number>();

  constructor(
    private readonly reader: WineLabelReader,
    private readonly labels: WineLabelRepository,
  ) {}

  async analyze(input: IngestHookInput): Promise<WineLabelMetadata> {
    if (!readableSize(input.normalized)) return { text_lines: [], text_tokens: [] };
    const reading = await this.reader.read(input.normalized);
    this.timings.set(input.item.staged_key, reading.time_detect_label + reading.time_extract_text);
    return reading.metadata;
  }

  async persist(tx: Queryable, imagePk: number, metadata: WineLabelMetadata): Promise<void> {
    await this.labels.insert(tx, imagePk, metadata);
  }

  /** Seconds spent on the labels of these staged items; forgets them. */
  takeTime(stagedKeys: readonly string[]): number {
    let total = 0;
    for (const key of stagedKeys) {
      total += this.timings.get(key) ?? 0;
      this.timings.delete(key);
    }
    return total;
  }
}
