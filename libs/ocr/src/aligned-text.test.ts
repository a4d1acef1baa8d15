import { rgbToGray } from '@loupe/fingerprint';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzyContained, readAlignedLines, readingsDisagree, type BandReader, type LineReading, type ToQuery } from './aligned-text';
import { createOcrPool, type OcrPool } from './ocr-pool';
import { badgeSvg } from './testing/badges';
import { toRgbImage } from './testing/label-fixtures';
import type { TextBand } from './text-bands';
import { findTextLines } from './text-lines';
import type { OcrLine } from './types';

async function grey(svg: string, jpegQuality?: number) {
  const image = sharp(Buffer.from(svg));
  return rgbToGray(await toRgbImage(jpegQuality ? sharp(await image.jpeg({ quality: jpegQuality }).toBuffer()) : image));
}

/** A line read with one confidence for all its words. */
function line(text: string, confidence: number): OcrLine {
  const box = { x0: 0, y0: 0, x1: 10, y1: 10 };
  return { text, confidence, box, words: text.split(' ').map((w) => ({ text: w, confidence, box })) };
}

function reading(collection: OcrLine[], query: OcrLine[]): LineReading {
  return { band: { box: { x0: 0, y0: 0, x1: 10, y1: 10 }, lightInk: false }, collection, query };
}

describe('readingsDisagree', () => {
  it('holds when a line reads surely in both and shares no word', () => {
    expect(readingsDisagree([reading([line('NORGOSYL', 90)], [line('QUIPHA', 91)])])).toBe(true);
  });

  it('does not hold for OCR slips of one name (a letter misread or lost)', () => {
    expect(readingsDisagree([reading([line('QUIPHA', 90)], [line('OUIPHA', 85)])])).toBe(false);
    expect(readingsDisagree([reading([line('NORGOSYL', 90)], [line('NORGOSY', 85)])])).toBe(false);
    expect(readingsDisagree([reading([line('Norlo', 90)], [line('orio', 79)])])).toBe(false);
  });

  it("does not hold for a word the query's edge cuts: the collection image reads more of it", () => {
    expect(readingsDisagree([reading([line('ince 1972', 96)], [line('nce 1972', 95)])])).toBe(false);
    expect(readingsDisagree([reading([line('NORGOS', 90)], [line('NORGO', 92)])])).toBe(false);
  });

  it('holds for parts of two names cut at one place', () => {
    expect(readingsDisagree([reading([line('NORGOS', 90)], [line('QUIPH', 92)])])).toBe(true);
  });

  it('decides nothing from an unsure reading or one without letters', () => {
    expect(readingsDisagree([reading([line('NORGOSYL', 90)], [line('QUIPHA', 40)])])).toBe(false);
    expect(readingsDisagree([reading([line('NORGOSYL', 90)], [])])).toBe(false);
    expect(readingsDisagree([reading([line('EST. 1992', 90)], [line('EST. 2007', 90)])])).toBe(false);
    expect(readingsDisagree([reading([line('1992', 90)], [line('2007', 90)])])).toBe(false);
  });

  it('holds when any one line disagrees', () => {
    expect(readingsDisagree([reading([line('EST. 1992', 90)], [line('EST. 1992', 90)]), reading([line('NORGOSYL', 90)], [line('QUIPHA', 91)])])).toBe(true);
  });
});

describe('fuzzyContained', () => {
  it('finds a reading inside another within one edit per four letters, anywhere in it', () => {
    expect(fuzzyContained('NCE', 'SINCE')).toBe(true);
    expect(fuzzyContained('ORIO', 'NORLO')).toBe(true);
    expect(fuzzyContained('QUIPHA', 'QUIPHA')).toBe(true);
    expect(fuzzyContained('NORGOSYL', 'XXNORG0SYLXX')).toBe(true);
    expect(fuzzyContained('NORGOSYL', 'NORG0SXL')).toBe(true);
    expect(fuzzyContained('NORGOSYL', 'N0RG0SXL')).toBe(false);
    expect(fuzzyContained('QUIPH', 'NORGOS')).toBe(false);
    expect(fuzzyContained('ABC', 'XYZ')).toBe(false);
  });
});

describe('readAlignedLines', () => {
  let pool: OcrPool;
  beforeAll(async () => {
    pool = await createOcrPool({ size: 1 });
  }, 60_000);
  afterAll(async () => {
    await pool.close();
  });
  const read = (g: Parameters<OcrPool['readBands']>[0], bands: Parameters<OcrPool['readBands']>[1]) => pool.readBands(g, bands);

  // The query shows the badge at 0.8 of its size, turned 12° about its centre and moved, re-encoded as JPEG q40: the
  // map from the collection image's pixels into the query's is that transform.
  const angle = (12 * Math.PI) / 180;
  const scale = 0.8;
  const [dx, dy] = [60, 40];
  const placed = `translate(${dx} ${dy}) rotate(12 450 300) translate(450 300) scale(${scale}) translate(-450 -300)`;
  const toQuery: ToQuery = (x, y) => {
    const [u, v] = [(x - 450) * scale, (y - 300) * scale];
    return [450 + u * Math.cos(angle) - v * Math.sin(angle) + dx, 300 + u * Math.sin(angle) + v * Math.cos(angle) + dy];
  };

  it('reads the same name where a turned, scaled, re-encoded copy shows it', async () => {
    const readings = await readAlignedLines(read, await grey(badgeSvg('QUIPHA', 2007, { transform: placed }), 40), await grey(badgeSvg('QUIPHA', 2007)), toQuery);
    expect(readings.length).toBeGreaterThan(0);
    expect(readings[0].collection.map((l) => l.text).join(' ')).toContain('QUIPHA');
    expect(readings[0].query.map((l) => l.text).join(' ')).toContain('QUIPHA');
    expect(readingsDisagree(readings)).toBe(false);
  }, 30_000);

  it('reads another name in another badge of the template, aligned the same way', async () => {
    const readings = await readAlignedLines(read, await grey(badgeSvg('QUIPHA', 2007, { transform: placed }), 40), await grey(badgeSvg('NORGOSYL', 1992)), toQuery);
    expect(readings[0].collection.map((l) => l.text).join(' ')).toContain('NORGOSYL');
    expect(readings[0].query.map((l) => l.text).join(' ')).toContain('QUIPHA');
    expect(readingsDisagree(readings)).toBe(true);
  }, 30_000);

  it.each([
    ['QUIPHA', false],
    ['NORGOSYL', true],
  ] as const)('reads a name the query crops through over the part it shows (collection badge %s)', async (name, disagree) => {
    // A query of the badge's left 520 columns: the edge cuts through the name.
    const cut = (svg: string) => svg.replace('width="900"', 'width="520"');
    const readings = await readAlignedLines(read, await grey(cut(badgeSvg('QUIPHA', 2007)), 60), await grey(badgeSvg(name, 1992)), (x, y) => [x, y]);
    const nameLine = readings.find((r) => !r.band.lightInk)!;
    expect(nameLine.band.box.x1).toBeLessThan(520);
    expect(readingsDisagree(readings)).toBe(disagree);
  }, 30_000);

  it('takes no line of another size for the line a fit puts there', async () => {
    // A fit 100 px off (a label wrapped round a bottle, extrapolated far from its inliers) puts the query's year line
    // where the collection image's name is: nothing is compared there.
    const readings = await readAlignedLines(read, await grey(badgeSvg('QUIPHA', 2007)), await grey(badgeSvg('NORGOSYL', 1992)), (x, y) => [x, y - 100]);
    const nameLine = readings.find((r) => !r.band.lightInk)!;
    expect(nameLine.collection.map((l) => l.text).join(' ')).toContain('NORGOSYL');
    expect(nameLine.query).toEqual([]);
    expect(readingsDisagree(readings)).toBe(false);
  }, 30_000);

  it('reads no row of a texture: rows of figures down a pattern, but a name printed above them', async () => {
    const rows = Array.from({ length: 8 }, (_, i) => `<text x="450" y="${150 + 60 * i}" text-anchor="middle" font-family="DejaVu Sans" font-size="36" fill="#222">${'4719382605'.slice(i % 3)} ${i}</text>`).join('');
    const pattern = (name: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="640"><rect width="100%" height="100%" fill="#f2ead8"/>${name}${rows}</svg>`;
    const counted: TextBand[][] = [];
    const counting: BandReader = async (_grey, bands) => (counted.push(bands), bands.map(() => []));
    const same = async (svg: string) => readAlignedLines(counting, await grey(svg), await grey(svg), (x, y) => [x, y]);

    expect(findTextLines(await grey(pattern(''))).length).toBeGreaterThanOrEqual(5);
    expect(await same(pattern(''))).toEqual([]);
    expect(counted).toEqual([]);

    const readings = await same(pattern('<text x="450" y="90" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="64" fill="#222">NORGOSYL</text>'));
    expect(readings).toHaveLength(1);
    expect(counted).toHaveLength(1);
    const [box] = counted[0].map((b) => b.box);
    expect(box.y1 - box.y0).toBeGreaterThan(40);
    expect(box.y1).toBeLessThan(110);
  });

  it('reads no line the query does not show', async () => {
    // A query cut to the badge's upper half: the name's ribbon is outside it, the year inside.
    const cut = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="250">${badgeSvg('QUIPHA', 2007).replace(/^<svg[^>]*>/, '')}`;
    const readings = await readAlignedLines(read, await grey(cut), await grey(badgeSvg('NORGOSYL', 1992)), (x, y) => [x, y]);
    expect(readings).toHaveLength(1);
    expect(readings[0].band.lightInk).toBe(true);
    expect(readingsDisagree(readings)).toBe(false);
  }, 30_000);
});
