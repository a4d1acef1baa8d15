import { combinePalettes, extractPalette, MAX_TARGET_COLORS, PaletteEntry, PaletteOptions, preparePalette, PreparedPalette } from '@loupe/color';
import { defineTask, runInThisThread, TaskRunner } from '@loupe/fingerprint';
import { ImageInputError, normalizeImage, RgbImage } from '@loupe/imaging';
import type { BlobStore, CollectionRef, ColorRepository, Queryable, StoredPaletteColor } from '@loupe/storage';
import type { BackgroundOptions, StagedQueryImage } from './color-contracts';
import type { IngestHook, IngestHookInput } from './ingest.service';
import { IngestPayload, unreadableUploadMessage } from './contracts';
import { Stopwatch } from './stopwatch';

/** docs/protocol.md §9: the color service's preferred smallest image side; query images are shrunk like stored ones. */
export const COLOR_PREFERRED_SIDE = 600;

export function notInCollectionMessage(filepath: string): string {
  return `${filepath}: This file does not exist in the image collection.`;
}

export function toStoredPalette(palette: readonly PaletteEntry[]): StoredPaletteColor[] {
  return palette.map((e) => ({ rgb: [e.rgb[0], e.rgb[1], e.rgb[2]], weight: e.weight, class: e.class }));
}

export function paletteOptions(options: BackgroundOptions, targetColors?: number): PaletteOptions {
  return {
    ignoreBackground: options.ignore_background,
    ignoreInteriorBackground: options.ignore_interior_background,
    targetColors: targetColors === undefined ? undefined : Math.min(MAX_TARGET_COLORS, targetColors),
  };
}

function backgroundOptions(options: Record<string, unknown> | undefined): BackgroundOptions {
  return { ignore_background: options?.ignore_background === true, ignore_interior_background: options?.ignore_interior_background === true };
}

/** The stored palette of an image; CPU work, so it runs on a compute thread. */
export const storedPaletteTask = defineTask(
  __filename,
  'storedPaletteTask',
  ({ image, options }: { image: RgbImage; options: PaletteOptions }): StoredPaletteColor[] => toStoredPalette(extractPalette(image, options)),
);

/**
 * The color step of `update`: the palette of the normalised image, with the background options of the request,
 * computed outside the transaction and stored with the image row inside it.
 */
export class ColorIngestHook implements IngestHook<StoredPaletteColor[]> {
  constructor(
    private readonly colors: ColorRepository,
    private readonly run: TaskRunner = runInThisThread,
  ) {}

  async analyze(input: IngestHookInput): Promise<StoredPaletteColor[]> {
    const { data, width, height } = input.normalized;
    return this.run(storedPaletteTask, { image: { data, width, height }, options: paletteOptions(backgroundOptions(input.payload.options)) });
  }

  async persist(tx: Queryable, imagePk: number, palette: StoredPaletteColor[], payload: IngestPayload): Promise<void> {
    const options = backgroundOptions(payload.options);
    await this.colors.insertPalette(tx, imagePk, palette, {
      ignoreBackground: options.ignore_background,
      ignoreInteriorBackground: options.ignore_interior_background,
    });
  }
}

/** Palettes of staged query images, each extracted separately; the staged blobs are consumed. */
export async function palettesOfStaged(
  blobs: BlobStore,
  images: readonly StagedQueryImage[],
  options: PaletteOptions,
  watches: { resize: Stopwatch; work: Stopwatch },
): Promise<{ palettes: PaletteEntry[][]; errors: string[] }> {
  const palettes: PaletteEntry[][] = [];
  const errors: string[] = [];
  for (const image of images) {
    try {
      const data = await blobs.get(image.staged_key);
      if (data === null) {
        errors.push(unreadableUploadMessage(image.label));
        continue;
      }
      watches.resize.start();
      let normalized;
      try {
        normalized = await normalizeImage(data, { preferredSide: COLOR_PREFERRED_SIDE });
      } catch (error) {
        if (error instanceof ImageInputError) {
          errors.push(`${image.label}: ${error.message}`);
          continue;
        }
        throw error;
      } finally {
        watches.resize.stop();
      }
      watches.work.start();
      palettes.push(extractPalette(normalized, options));
      watches.work.stop();
    } finally {
      await blobs.delete(image.staged_key);
    }
  }
  return { palettes, errors };
}

export { combinePalettes };

export interface CachedPalette {
  id: number;
  filepath: string;
  palette: StoredPaletteColor[];
  prepared: PreparedPalette;
}

interface CacheEntry {
  version: string;
  palettes: CachedPalette[];
  byId: Map<number, CachedPalette>;
}

/**
 * Palettes of whole collections, converted to OKLab once, kept in worker memory so a search over 10k images does not
 * reread and reconvert 10k rows. Always rebuildable from Postgres: every use first compares the collection's version
 * token (count and max id, one index-only query), so changes made by any replica are seen by the next search.
 */
export class PaletteCache {
  private readonly entries = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CacheEntry>>();

  constructor(
    private readonly colors: ColorRepository,
    /** Collections kept at once; the least recently used is dropped past this. */
    private readonly maxCollections = 64,
  ) {}

  async get(ref: CollectionRef): Promise<CacheEntry> {
    const key = `${ref.accountId}:${ref.service}`;
    const version = await this.colors.collectionVersion(ref);
    const cached = this.entries.get(key);
    if (cached && cached.version === version) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const pending = this.loading.get(key);
    if (pending) return pending;
    const load = (async () => {
      const rows = await this.colors.loadPalettes(ref);
      const palettes = rows.map((r) => ({ ...r, prepared: preparePalette(r.palette) }));
      const entry = { version, palettes, byId: new Map(palettes.map((p) => [p.id, p])) };
      this.entries.delete(key);
      this.entries.set(key, entry);
      while (this.entries.size > this.maxCollections) this.entries.delete(this.entries.keys().next().value as string);
      return entry;
    })();
    this.loading.set(key, load);
    try {
      return await load;
    } finally {
      this.loading.delete(key);
    }
  }
}
