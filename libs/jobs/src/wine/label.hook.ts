import type { Queryable, WineLabelRepository } from '@loupe/storage';
import type { IngestHook, IngestHookInput } from '../ingest.service';
import type { WineLabelMetadata } from './contracts';
import type { WineLabelReader } from './label-reader';
import { readableSize } from './label-image';

/**
 * Reads the label of an added wine image (outside the transaction) and stores its metadata with the image (inside
 * it). Every image gets a row, empty when no label was read, so a search always finds the collection side's text.
 * Its time is reported as time_detect_label (docs/protocol.md §9), not in time_add.
 */
export class WineLabelHook implements IngestHook<WineLabelMetadata> {
  readonly stat = 'time_detect_label';

  constructor(
    private readonly reader: WineLabelReader,
    private readonly labels: WineLabelRepository,
  ) {}

  async analyze(input: IngestHookInput): Promise<WineLabelMetadata> {
    if (!readableSize(input.normalized)) return { text_lines: [], text_tokens: [] };
    return (await this.reader.read(input.normalized)).metadata;
  }

  async persist(tx: Queryable, imagePk: number, metadata: WineLabelMetadata): Promise<void> {
    await this.labels.insert(tx, imagePk, metadata);
  }
}
