import type { BlobStore } from '@loupe/storage';
import { InputRefusedError, unreadableUploadMessage } from '../contracts';
import { Stopwatch } from '../stopwatch';
import type { WineExtractPayload, WineExtractResult, WineLabelMetadata } from './contracts';
import { loadLabelImage, readableSize, tooSmallToReadMessage } from './label-image';
import type { WineLabelReader } from './label-reader';

export function noLabelMessage(label: string): string {
  return `${label}: No wine label was found in the image.`;
}

interface Extracted {
  item?: { filepath: string; metadata: WineLabelMetadata };
  error?: string;
  time_resize: number;
  time_detect_label: number;
  time_extract_text: number;
}

/**
 * extract_metadata and extract_text (docs/protocol.md §7): each image's label is found and read; an image that
 * cannot be read or shows no label is reported by name while the others still answer. Images are read
 * concurrently: the OCR pool takes as many at once as it has workers.
 */
export class WineExtractService {
  constructor(
    private readonly reader: WineLabelReader,
    private readonly blobs: BlobStore,
  ) {}

  async extract(payload: WineExtractPayload): Promise<WineExtractResult> {
    try {
      const done = await Promise.all(payload.images.map((image) => this.extractOne(image, payload)));
      const sum = (key: 'time_resize' | 'time_detect_label' | 'time_extract_text') => Math.round(done.reduce((s, d) => s + d[key], 0) * 1e6) / 1e6;
      return {
        items: done.flatMap((d) => (d.item ? [d.item] : [])),
        errors: done.flatMap((d) => (d.error ? [d.error] : [])),
        time_resize: sum('time_resize'),
        time_detect_label: sum('time_detect_label'),
        time_extract_text: sum('time_extract_text'),
      };
    } finally {
      await Promise.all(payload.images.map((image) => this.blobs.delete(image.staged_key)));
    }
  }

  private async extractOne(image: { staged_key: string; label: string }, payload: WineExtractPayload): Promise<Extracted> {
    const none = { time_resize: 0, time_detect_label: 0, time_extract_text: 0 };
    const data = await this.blobs.get(image.staged_key);
    if (data === null) return { ...none, error: unreadableUploadMessage(image.label) };
    const resizeWatch = new Stopwatch().start();
    let img;
    try {
      img = await loadLabelImage(data, image.label, payload.preferred_side);
    } catch (error) {
      if (error instanceof InputRefusedError) return { ...none, error: error.message };
      throw error;
    } finally {
      resizeWatch.stop();
    }
    if (!readableSize(img)) return { ...none, time_resize: resizeWatch.elapsed, error: tooSmallToReadMessage(image.label, img) };
    const reading = await this.reader.read(img, { fieldsOnly: payload.op === 'metadata' });
    const times = { time_resize: resizeWatch.elapsed, time_detect_label: reading.time_detect_label, time_extract_text: reading.time_extract_text };
    if (!reading.found) return { ...times, error: noLabelMessage(image.label) };
    const { text_lines, ...metadata } = reading.metadata;
    // extract_text answers the lines; extract_metadata the fields of docs/protocol.md §8 with text_tokens.
    return { ...times, item: { filepath: image.label, metadata: payload.op === 'text' ? { text_lines } : metadata } };
  }
}
