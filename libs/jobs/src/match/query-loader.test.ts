import { differenceHash, seededRandom, type Features } from '@loupe/fingerprint';
import { crop, cropBox, toRgb } from '@loupe/fingerprint/src/testing/edits';
import { softBlobs, syntheticImage, woodGrainSvg } from '@loupe/fingerprint/src/testing/synthetic-images';
import { decodeToRgb, grayImageOf } from '@loupe/imaging';
import { rawSharp } from '@loupe/imaging/src/testing/test-images';
import type { BlobStore, ImageRepository } from '@loupe/storage';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { Stopwatch } from '../stopwatch';
import { LoadedQuery, medianResponse, QueryLoader, UprightQuery, uprightQuery, wordRepetition, worthPlacing } from './query-loader';
import { matchVocabulary } from './vocabulary';

/** A query of `count` points whose corner strengths (ORB responses) are all `response`. */
const queryWith = (count: number, response = 1e-4) =>
  ({ label: 'q.jpg', features: { count, meta: Float32Array.from({ length: 4 * count }, (_, i) => (i % 4 === 2 ? response : 0)) } as Features }) as LoadedQuery;
const words = (distinct: number, total: number) => Uint32Array.from({ length: total }, (_, i) => i % distinct);

/** Loads `data` as an upload, from a blob store that holds only it. */
async function loadUpload(data: Buffer): Promise<LoadedQuery> {
  const blobs = { get: async (key: string) => (key === 'staged' ? data : null) } as unknown as BlobStore;
  const loader = new QueryLoader({} as ImageRepository, blobs);
  return loader.load({ accountId: 1, service: 'mobile' }, { staged_key: 'staged', label: 'q.png' }, { preferredSide: 600, includeMirror: false }, new Stopwatch());
}

describe('which queries are worth placing by their pixels', () => {
  it('places a query with few points, or whose words repeat, and not a photo of distinct corners', () => {
    expect(worthPlacing(queryWith(40), words(40, 40))).toBe(true);
    expect(worthPlacing(queryWith(1000), words(300, 1000))).toBe(true);
    expect(worthPlacing(queryWith(1000), words(850, 1000))).toBe(false);
    // A quarter of the words repeated is the bound.
    expect(worthPlacing(queryWith(1000), words(760, 1000))).toBe(false);
    expect(worthPlacing(queryWith(1000), words(740, 1000))).toBe(true);
    // Distinct but weak corners: the block edges of a recompressed smooth image, a recompressed crop of wood grain.
    expect(worthPlacing(queryWith(1000, 2e-8), words(850, 1000))).toBe(true);
    expect(worthPlacing(queryWith(1000, 2e-7), words(850, 1000))).toBe(true);
    expect(worthPlacing(queryWith(1000, 1e-6), words(850, 1000))).toBe(false);
  });

  it('places an upright copy of a rotated query whose words repeat a fifth, and not one that repeats less', () => {
    const upright = (query: LoadedQuery) => ({ ...query, toRotated: [1, 0, 0, 0, 1, 0, 0, 0, 1], onFilledCanvas: true }) as UprightQuery;
    expect(worthPlacing(queryWith(1000), words(780, 1000))).toBe(false);
    expect(worthPlacing(upright(queryWith(1000)), words(780, 1000))).toBe(true);
    expect(worthPlacing(upright(queryWith(1000)), words(820, 1000))).toBe(false);
  });

  it('places a rotated JPEG crop of wood grain, whose thousand points are weak corners that hardly repeat', async () => {
    // Wood grain as the matching benchmark draws and stores it (JPEG q92), a quarter turned -20° and saved at JPEG q50:
    // there, such a copy of wood-4 was found only by placing it upright. Its corners are weaker than any photo's outside
    // the collection (1.7e-6 at the weakest in the benchmark), but not as weak as the blocks of a recompressed smooth
    // image (under 1e-7).
    const stored = await sharp(Buffer.from(woodGrainSvg(seededRandom(1), 1200, 800))).jpeg({ quality: 92 }).toBuffer();
    const grain = await toRgb(sharp(stored));
    const turnedQuarter = await rawSharp(await crop(grain, cropBox(grain, 0.25, 0.4, 0.6))).rotate(-20, { background: '#808080' }).jpeg({ quality: 50 }).toBuffer();
    const query = await loadUpload(turnedQuarter);
    const queryWords = matchVocabulary().vocabulary.quantize(query.features);
    expect(query.features.count).toBeGreaterThanOrEqual(300);
    expect(wordRepetition(queryWords), 'hardly repeated').toBeLessThan(0.25);
    expect(medianResponse(query.features), 'weaker than a photo, not as weak as JPEG blocks').toBeGreaterThan(1e-7);
    expect(worthPlacing(query, queryWords)).toBe(true);
  });

  it('places a rotated JPEG crop of a soft wallpaper, whose thousand points are block edges, and not a JPEG copy of a scene', async () => {
    const wallpaper = await softBlobs(2);
    const turnedCrop = await rawSharp(await crop(wallpaper, cropBox(wallpaper, 0.5, 0.3, 0.6))).rotate(20, { background: '#808080' }).jpeg({ quality: 40 }).toBuffer();
    const smooth = await loadUpload(turnedCrop);
    const smoothWords = matchVocabulary().vocabulary.quantize(smooth.features);
    expect(smooth.features.count).toBeGreaterThanOrEqual(300);
    expect(wordRepetition(smoothWords), 'hardly repeated').toBeLessThan(0.25);
    expect(worthPlacing(smooth, smoothWords)).toBe(true);
    const scene = await loadUpload(await rawSharp(await syntheticImage(5, 800, 600)).jpeg({ quality: 40 }).toBuffer());
    expect(scene.features.count).toBeGreaterThanOrEqual(300);
    expect(worthPlacing(scene, matchVocabulary().vocabulary.quantize(scene.features))).toBe(false);
  });
});

describe('QueryLoader', () => {
  it('keeps the hash of an upload\'s frame before its borders were cut, and only when the cut took something', async () => {
    const scene = await rawSharp(await syntheticImage(3, 600, 450)).png().toBuffer();
    expect((await loadUpload(scene)).uncutHash).toBeUndefined();
    const framed = await rawSharp(await syntheticImage(3, 600, 450)).extend({ top: 60, bottom: 60, left: 0, right: 0, background: '#fff' }).png().toBuffer();
    const query = await loadUpload(framed);
    expect(query.rgb.height).toBeLessThan(500);
    expect(query.uncutHash).toBe(differenceHash(grayImageOf(await decodeToRgb(framed))));
    expect(query.uncutHash).not.toBe(differenceHash(query.gray));
  });

  it('gives a query, and its copy turned upright, in shared memory: the pixel checks hand them to the threads without copies', async () => {
    const turned = await rawSharp(await syntheticImage(6, 600, 450)).rotate(20, { background: '#fff' }).png().toBuffer();
    const query = await loadUpload(turned);
    const upright = await uprightQuery(query, false);
    expect(upright, 'its turn is read').not.toBeNull();
    for (const q of [query, upright!]) {
      const arrays = { rgb: q.rgb.data, gray: q.gray.data, xy: q.features.xy, meta: q.features.meta, descriptors: q.features.descriptors };
      for (const [name, array] of Object.entries(arrays)) expect(array.buffer, name).toBeInstanceOf(SharedArrayBuffer);
    }
  });
});
