import { beforeAll, describe, expect, it } from 'vitest';
import { extractFeatures, isEnlargedForDetection, mirrorGray, NATIVE_SCALE_WORKING_SIDE, TARGET_FEATURES } from './features';
import { searchVocabulary } from './default-vocabulary';
import { fingerprintHealth } from './health';
import { serializeFeatures, serializeFeaturesExact, deserializeFeatures, storedFrame } from './features-codec';
import { syntheticImage, toGray } from './testing/synthetic-images';
import * as edit from './testing/edits';
import type { Features, GrayImage, RgbImage } from './types';

let rich: GrayImage;
let richFeatures: Features;
beforeAll(async () => {
  rich = toGray(await syntheticImage(42));
  richFeatures = await extractFeatures(rich, { includeMirror: true });
});

describe('feature extraction', () => {
  it('finds the target number of keypoints on a rich image, inside the image', () => {
    expect(richFeatures.count).toBe(TARGET_FEATURES);
    expect(richFeatures.descriptors.length).toBe(32 * TARGET_FEATURES);
    for (let i = 0; i < richFeatures.count; i++) {
      expect(richFeatures.xy[2 * i]).toBeGreaterThanOrEqual(0);
      expect(richFeatures.xy[2 * i]).toBeLessThan(rich.width);
      expect(richFeatures.xy[2 * i + 1]).toBeLessThan(rich.height);
    }
  });

  it('spreads keypoints so every image quadrant holds at least a tenth of them', () => {
    const quadrants = [0, 0, 0, 0];
    for (let i = 0; i < richFeatures.count; i++) {
      const q = (richFeatures.xy[2 * i] < rich.width / 2 ? 0 : 1) + (richFeatures.xy[2 * i + 1] < rich.height / 2 ? 0 : 2);
      quadrants[q]++;
    }
    for (const n of quadrants) expect(n).toBeGreaterThan(TARGET_FEATURES / 10);
  });

  it('honours maxFeatures', async () => {
    expect((await extractFeatures(rich, { maxFeatures: 200 })).count).toBe(200);
  });

  it('reports keypoints of a tiny image in its own pixel coordinates', async () => {
    const tiny = toGray(await edit.scale(await syntheticImage(42), 0.25));
    const f = await extractFeatures(tiny);
    expect(f.count).toBeGreaterThan(300);
    expect(Math.max(...f.xy.filter((_, i) => i % 2 === 0))).toBeLessThan(tiny.width);
  });

  it('keeps a small crop near its own scale on request, where it shares more words with its image', async () => {
    // A quarter of a 512 px image is 256 px at the image's scale; enlarged to the default working side its finest
    // pyramid levels have no counterpart in its image. A half-size thumbnail of the whole image is the opposite case.
    const image = await syntheticImage(7, 512, 512);
    const vocabulary = searchVocabulary();
    const wordsOf = async (img: RgbImage, minWorkingSide?: number) => new Set(vocabulary.quantize(await extractFeatures(toGray(img), { minWorkingSide })));
    const imageWords = await wordsOf(image);
    const shared = (words: Set<number>) => [...words].filter((w) => imageWords.has(w)).length;
    const quarter = await edit.crop(image, edit.cropBox(image, 0.25, 0.3, 0.6));
    const thumbnail = await edit.scale(image, 0.5);
    expect(isEnlargedForDetection(quarter.width, quarter.height)).toBe(true);
    expect(isEnlargedForDetection(image.width, image.height)).toBe(false);
    const quarterNative = shared(await wordsOf(quarter, NATIVE_SCALE_WORKING_SIDE));
    const quarterEnlarged = shared(await wordsOf(quarter));
    expect(quarterNative).toBeGreaterThan(quarterEnlarged * 1.2);
    expect(shared(await wordsOf(thumbnail))).toBeGreaterThan(shared(await wordsOf(thumbnail, NATIVE_SCALE_WORKING_SIDE)));
  });

  it('extracts mirrored features from the mirrored image', () => {
    const m = richFeatures.mirrored!;
    expect(m.count).toBe(TARGET_FEATURES);
    expect(Buffer.from(m.descriptors).equals(Buffer.from(richFeatures.descriptors))).toBe(false);
  });

  it('mirrors grey pixels left to right', () => {
    const img = { data: Uint8Array.from([1, 2, 3, 4, 5, 6]), width: 3, height: 2 };
    expect(Array.from(mirrorGray(img).data)).toEqual([3, 2, 1, 6, 5, 4]);
  });

  it('rejects a pixel buffer whose length does not match its size', async () => {
    await expect(extractFeatures({ data: new Uint8Array(10), width: 4, height: 4 })).rejects.toThrow(RangeError);
  });
});

describe('fingerprint health', () => {
  it('is 100 for a rich image', () => {
    expect(fingerprintHealth(richFeatures)).toBe(100);
  });

  it('is low for a flat image with one small textured patch', async () => {
    const flat = new Uint8Array(800 * 600).fill(128);
    for (let y = 40; y < 140; y++) for (let x = 40; x < 140; x++) flat[y * 800 + x] = (x * 7 + y * 13) % 5 === 0 ? 255 : 0;
    const f = await extractFeatures({ data: flat, width: 800, height: 600 });
    expect(fingerprintHealth(f)).toBeLessThan(20);
  });

  it('is 0 without keypoints', async () => {
    const f = await extractFeatures({ data: new Uint8Array(600 * 600).fill(90), width: 600, height: 600 });
    expect(f.count).toBe(0);
    expect(fingerprintHealth(f)).toBe(0);
  });
});

describe('feature serialisation', () => {
  /** Stored buffers are not guaranteed to be aligned: read them at an odd offset. */
  const atOddOffset = (buf: Buffer): Buffer => Buffer.concat([Buffer.from([0]), buf]).subarray(1);

  /** Largest difference between two angles in degrees, going the short way round. */
  const largestTurn = (a: Features, b: Features): number => {
    let largest = 0;
    for (let i = 0; i < a.count; i++) {
      const d = Math.abs(a.meta[4 * i + 1] - b.meta[4 * i + 1]) % 360;
      largest = Math.max(largest, Math.min(d, 360 - d));
    }
    return largest;
  };

  it('stores keypoints compactly: fixed-point coordinates, fine angles, descriptors unchanged', () => {
    const buf = serializeFeatures(richFeatures);
    expect(buf.subarray(0, 4).toString('latin1')).toBe('LFP2');
    expect(buf.length).toBe(2 * 20 + 43 * (richFeatures.count + richFeatures.mirrored!.count));
    const back = deserializeFeatures(atOddOffset(buf));
    expect(storedFrame(atOddOffset(buf)), 'the frame, from the header alone').toEqual({ width: richFeatures.width, height: richFeatures.height });
    for (const [original, read] of [[richFeatures, back], [richFeatures.mirrored!, back.mirrored!]] as const) {
      expect(read.count).toBe(original.count);
      expect([read.width, read.height]).toEqual([original.width, original.height]);
      expect(Buffer.from(read.descriptors).equals(Buffer.from(original.descriptors))).toBe(true);
      for (let i = 0; i < original.count; i++) {
        expect(Math.abs(read.xy[2 * i] - original.xy[2 * i])).toBeLessThanOrEqual(original.width / 65535 / 2 + 1e-4);
        expect(Math.abs(read.xy[2 * i + 1] - original.xy[2 * i + 1])).toBeLessThanOrEqual(original.height / 65535 / 2 + 1e-4);
        expect(Math.abs(read.meta[4 * i] / original.meta[4 * i] - 1)).toBeLessThan(1 / 256);
        expect(Math.abs(read.meta[4 * i + 2] / original.meta[4 * i + 2] - 1)).toBeLessThan(1 / 256);
        expect(read.meta[4 * i + 3]).toBe(original.meta[4 * i + 3]);
      }
      expect(largestTurn(read, original)).toBeLessThanOrEqual(360 / 65536 / 2 + 1e-4);
    }
  });

  it('gives the same bytes when features read back are stored again (a thread hands them on, a re-fingerprint)', () => {
    const once = serializeFeatures(richFeatures);
    expect(serializeFeatures(deserializeFeatures(once)).equals(once)).toBe(true);
  });

  it('keeps angles near a full turn and coordinates on the image edge', () => {
    const edge: Features = {
      width: 640,
      height: 480,
      count: 2,
      xy: Float32Array.from([0, 480, 640, 0]),
      meta: Float32Array.from([31, 359.999, 0.001, 0, 44.64, 180, 2e-7, 2]),
      descriptors: new Uint8Array(64).fill(0xa5),
    };
    const back = deserializeFeatures(serializeFeatures(edge));
    expect(Array.from(back.xy)).toEqual([0, 480, 640, 0]);
    expect(largestTurn(back, edge)).toBeLessThan(0.01);
    expect(back.meta[4 + 2]).toBeCloseTo(2e-7, 9);
    expect(back.mirrored).toBeUndefined();
  });

  it('still reads rows written in the float32 layout (LFP1), exactly', () => {
    const buf = serializeFeaturesExact(richFeatures);
    expect(buf.subarray(0, 4).toString('latin1')).toBe('LFP1');
    expect(buf.length).toBe(2 * 20 + 56 * (richFeatures.count + richFeatures.mirrored!.count));
    const back = deserializeFeatures(atOddOffset(buf));
    expect(back.count).toBe(richFeatures.count);
    expect(storedFrame(buf)).toEqual({ width: richFeatures.width, height: richFeatures.height });
    expect(Array.from(back.xy)).toEqual(Array.from(richFeatures.xy));
    expect(Array.from(back.meta)).toEqual(Array.from(richFeatures.meta));
    expect(Buffer.from(back.descriptors).equals(Buffer.from(richFeatures.descriptors))).toBe(true);
    expect(Array.from(back.mirrored!.xy)).toEqual(Array.from(richFeatures.mirrored!.xy));
  });

  it('refuses a buffer that is not a fingerprint, and a cut one in either layout', () => {
    expect(() => deserializeFeatures(Buffer.from('not a fingerprint at all'))).toThrow(/Not a serialized/);
    expect(() => storedFrame(Buffer.from('not a fingerprint at all'))).toThrow(/Not a serialized/);
    expect(() => deserializeFeatures(serializeFeatures(richFeatures).subarray(0, 100))).toThrow(/Truncated/);
    expect(() => deserializeFeatures(serializeFeaturesExact(richFeatures).subarray(0, 100))).toThrow(/Truncated/);
    const withoutMirror = serializeFeatures(richFeatures).subarray(0, 20 + 43 * richFeatures.count);
    expect(() => deserializeFeatures(withoutMirror)).toThrow(/Not a serialized/);
  });
});
