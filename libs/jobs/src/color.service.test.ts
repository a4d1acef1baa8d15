import { renderSvg, svgDoc } from '@loupe/color/src/test-support/render';
import { rawSharp } from '@loupe/imaging/src/testing/test-images';
import { BlobStore, ColorRepository, Db, ImageRepository, MetadataQuery, StoredPaletteColor } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingKey } from './blob-keys';
import { ColorCollectionPayload, ColorSearchPayload, ColorSearchResult, JsonRgb } from './color-contracts';
import { COLOR_PREFERRED_SIDE, ColorIngestHook } from './color-palettes';
import { ColorService } from './color.service';
import { IngestItem } from './contracts';
import { IngestService } from './ingest.service';
import { openEmbeddedStore, type EmbeddedStore } from './testing/embedded-store';

const RED: JsonRgb = [198, 40, 40];
const BLUE: JsonRgb = [31, 78, 156];
const GREEN: JsonRgb = [46, 125, 50];
const YELLOW: JsonRgb = [251, 192, 45];
const WHITE: JsonRgb = [255, 255, 255];

const hex = ([r, g, b]: JsonRgb) => `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** 600×400, `share` % of it (a left band) in `main`, the rest in `rest`: palettes with known weights. */
async function twoColorPng(main: JsonRgb, share: number, rest: JsonRgb): Promise<Buffer> {
  const split = (600 * share) / 100;
  const svg = svgDoc(600, 400, `<rect width="600" height="400" fill="${hex(rest)}"/><rect width="${split}" height="400" fill="${hex(main)}"/>`);
  return rawSharp(await renderSvg(svg)).png().toBuffer();
}

/** The collection: what each image is made of, and its keyword metadata (stored form, as `update` writes it). */
const COLLECTION = [
  { filepath: 'red.png', colors: [RED, 80, WHITE] as const, metadata: { keywords: ['warm', 'sale'] } },
  { filepath: 'blue.png', colors: [BLUE, 80, WHITE] as const, metadata: { keywords: ['cool'] } },
  { filepath: 'green.png', colors: [GREEN, 80, YELLOW] as const, metadata: { keywords: ['cool', 'sale'], price: { type: 'uint', '': 12 } } },
  { filepath: 'mostly-red.png', colors: [RED, 70, BLUE] as const, metadata: { keywords: ['warm'] } },
];

const keyword = (value: string): MetadataQuery => ({ kind: 'keyword', value });

/** The weight of the palette's colors within `tolerance` levels of `rgb` on every channel. */
function weightNear(palette: readonly StoredPaletteColor[], rgb: JsonRgb, tolerance = 12): number {
  return palette.filter((c) => c.rgb.every((v, i) => Math.abs(v - rgb[i]) <= tolerance)).reduce((sum, c) => sum + c.weight, 0);
}

describe('ColorService on a collection added through ingest', () => {
  let store: EmbeddedStore;
  let db: Db;
  let blobs: BlobStore;
  let colors: ColorRepository;
  let service: ColorService;
  let accountId: number;

  beforeAll(async () => {
    store = await openEmbeddedStore('color-service');
    ({ db, blobs, accountId } = store);
    colors = new ColorRepository(db);
    const items: IngestItem[] = [];
    for (const { filepath, colors: [main, share, rest], metadata } of COLLECTION) {
      const staged_key = stagingKey();
      await blobs.put(staged_key, await twoColorPng(main, share, rest));
      items.push({ filepath, image_id: null, staged_key, metadata });
    }
    const added = await new IngestService(new ImageRepository(db), blobs, () => [new ColorIngestHook(colors)]).ingest({
      account_id: accountId, account: 'acme', service: 'color', items, on_existing: 'replace', preferred_side: COLOR_PREFERRED_SIDE,
      options: { ignore_background: false },
    });
    expect(added.added).toEqual(COLLECTION.map((c) => c.filepath));
    service = new ColorService(colors, blobs);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  const staged = (data: Buffer, label: string) => store.stage(data, label);

  function search(query: Partial<ColorSearchPayload>): Promise<ColorSearchResult> {
    return service.search({
      account_id: accountId, service: 'color', ignore_background: false, ignore_interior_background: false,
      return_metadata: [], with_metadata: false, sort_metadata: false, min_score: 0, offset: 0, limit: 0, ...query,
    });
  }

  function overCollection(payload: Omit<ColorCollectionPayload, 'account_id' | 'service'>) {
    return service.collection({ account_id: accountId, service: 'color', ...payload });
  }

  it('finds the image of a searched color first, and leaves out images without it at a min_score', async () => {
    const all = await search({ colors: [{ rgb: RED, weight: 100 }] });
    expect(all.errors).toEqual([]);
    expect(all.hits.slice(0, 2).map((h) => h.filepath), 'the most red first').toEqual(['red.png', 'mostly-red.png']);
    expect(all.hits[0].score).toBeGreaterThan(all.hits[1].score!);
    expect(all.total_results).toBe(4);

    const red = await search({ colors: [{ rgb: RED, weight: 100 }], min_score: 50 });
    expect(red.hits.map((h) => h.filepath)).toEqual(['red.png', 'mostly-red.png']);
    expect([red.total_results, red.total_filtered_results]).toEqual([4, 2]);

    const blue = await search({ colors: [{ rgb: BLUE, weight: 100 }], min_score: 50 });
    expect(blue.hits.map((h) => h.filepath)).toEqual(['blue.png']);
  });

  it('pages hits by offset and limit, and narrows them by metadata and path filters', async () => {
    const all = await search({ colors: [{ rgb: RED, weight: 60 }, { rgb: BLUE, weight: 40 }] });
    expect(all.hits[0].filepath).toBe('mostly-red.png');
    const second = await search({ colors: [{ rgb: RED, weight: 60 }, { rgb: BLUE, weight: 40 }], offset: 1, limit: 2 });
    expect(second.hits).toEqual(all.hits.slice(1, 3));
    expect(second.total_filtered_results).toBe(all.total_filtered_results);

    const cool = await search({ colors: [{ rgb: RED, weight: 100 }], metadata: keyword('cool'), with_metadata: true });
    expect(cool.hits.map((h) => h.filepath).sort()).toEqual(['blue.png', 'green.png']);
    expect(cool.total_results, 'only the images the metadata selects are considered').toBe(2);
    expect(cool.hits.every((h) => h.score_metadata === 100)).toBe(true);

    const named = await search({ colors: [{ rgb: RED, weight: 100 }], name_filter: '*red*' });
    expect(named.hits.map((h) => h.filepath)).toEqual(['red.png', 'mostly-red.png']);
  });

  it('searches by an uploaded photo (consuming its staged upload) and by a collection path', async () => {
    const photo = await staged(await rawSharp(await renderSvg(svgDoc(500, 500, `<rect width="500" height="500" fill="${hex(BLUE)}"/>`))).jpeg({ quality: 80 }).toBuffer(), 'sky.jpg');
    const byPhoto = await search({ image: photo });
    expect(byPhoto.errors).toEqual([]);
    expect(byPhoto.hits[0].filepath).toBe('blue.png');
    expect(await blobs.exists(photo.staged_key)).toBe(false);

    const byPath = await search({ filepath: 'green.png' });
    expect(byPath.hits[0]).toEqual({ filepath: 'green.png', score: 100 });
    expect(byPath.hits[1].score).toBeLessThan(50);

    const absent = await search({ filepath: 'absent.png' });
    expect(absent).toMatchObject({ errors: ['absent.png: This file does not exist in the image collection.'], hits: [], total_results: 0 });
    const corrupt = await search({ image: await staged(Buffer.from('not an image'), 'note.txt') });
    expect(corrupt.errors).toEqual([expect.stringMatching(/^note\.txt: Unsupported image format/)]);
  });

  it('extracts the combined colors of a scope of paths, naming the paths not in the collection', async () => {
    const result = await overCollection({ op: 'extract', scope: { filepaths: ['red.png', 'blue.png', 'absent.png'] }, limit: 0 });
    expect(result.errors).toEqual(['absent.png: This file does not exist in the image collection.']);
    // Each image counts equally: 80 % red of one and 80 % blue of the other are 40 % each, the whites 20 %.
    expect(weightNear(result.palette!, RED)).toBeCloseTo(40, 0);
    expect(weightNear(result.palette!, BLUE)).toBeCloseTo(40, 0);
    expect(weightNear(result.palette!, WHITE)).toBeCloseTo(20, 0);
    expect(weightNear(result.palette!, GREEN)).toBe(0);

    const cool = await overCollection({ op: 'extract', scope: { metadata: keyword('cool') }, limit: 2 });
    expect(cool.palette, 'limit keeps the heaviest colors').toHaveLength(2);
    expect(weightNear(cool.palette!, RED)).toBe(0);
    expect(weightNear(cool.palette!, BLUE)).toBeGreaterThan(40);
    expect(weightNear(cool.palette!, GREEN)).toBeGreaterThan(40);
  });

  it('counts the images of a scope that hold each color, partly and mostly', async () => {
    const everything = await overCollection({ op: 'count_colors', scope: {}, count_colors: [RED, BLUE, YELLOW] });
    expect(everything.counts).toEqual([
      { partial: 2, full: 2 },
      { partial: 2, full: 1 },
      { partial: 1, full: 0 },
    ]);
    // A colors scope keeps the images scoring at least 50 for those colors: the two red ones.
    const reds = await overCollection({ op: 'count_colors', scope: { colors: [{ rgb: RED, weight: 100 }] }, count_colors: [BLUE, WHITE] });
    expect(reds.counts).toEqual([
      { partial: 1, full: 0 },
      { partial: 1, full: 0 },
    ]);
  });

  it('counts images by metadata, and an update of their metadata changes the counts', async () => {
    const queries = [keyword('warm'), keyword('cool'), keyword('sale'), { kind: 'range', key: 'price', min: 10 } as MetadataQuery];
    const before = await overCollection({ op: 'count_metadata', scope: {}, count_metadata: queries });
    expect(before.metadata_counts).toEqual([2, 2, 2, 1]);
    const inCoolScope = await overCollection({ op: 'count_metadata', scope: { metadata: keyword('cool') }, count_metadata: queries });
    expect(inCoolScope.metadata_counts).toEqual([0, 2, 1, 1]);

    const update = await service.updateMetadata({
      account_id: accountId,
      service: 'color',
      updates: [
        { filepath: 'blue.png', metadata: { keywords: ['warm', 'sale'], price: { type: 'uint', '': 30 } } },
        { filepath: 'absent.png', metadata: { keywords: ['warm'] } },
      ],
    });
    expect(update.updated).toEqual(['blue.png']);
    const after = await overCollection({ op: 'count_metadata', scope: {}, count_metadata: queries });
    expect(after.metadata_counts).toEqual([3, 1, 3, 2]);
    const warm = await search({ metadata: keyword('warm'), with_metadata: true });
    expect(warm.hits.map((h) => h.filepath).sort()).toEqual(['blue.png', 'mostly-red.png', 'red.png']);
  });

  it('extracts and counts the colors of uploaded images, consuming them', async () => {
    const uploads = [await staged(await twoColorPng(GREEN, 50, WHITE), 'a.png'), await staged(await twoColorPng(YELLOW, 50, WHITE), 'b.png')];
    const extracted = await service.images({ op: 'extract', images: uploads, limit: 0, ignore_background: false, ignore_interior_background: false });
    expect(extracted.errors).toEqual([]);
    expect(weightNear(extracted.palette!, GREEN)).toBeCloseTo(25, 0);
    expect(weightNear(extracted.palette!, YELLOW)).toBeCloseTo(25, 0);
    expect(weightNear(extracted.palette!, WHITE)).toBeCloseTo(50, 0);
    for (const upload of uploads) expect(await blobs.exists(upload.staged_key)).toBe(false);

    const again = [await staged(await twoColorPng(GREEN, 50, WHITE), 'a.png'), await staged(await twoColorPng(YELLOW, 50, WHITE), 'b.png'), await staged(Buffer.alloc(0), 'empty.png')];
    const counted = await service.images({ op: 'count', images: again, limit: 0, count_colors: [WHITE, GREEN, RED], ignore_background: false, ignore_interior_background: false });
    expect(counted.errors).toEqual(['empty.png: The image file is empty.']);
    expect(counted.counts).toEqual([
      { partial: 2, full: 2 },
      { partial: 1, full: 1 },
      { partial: 0, full: 0 },
    ]);
  });
});
