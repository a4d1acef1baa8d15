import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { fullWidthLabel, wrapOnCylinder } from '@loupe/ocr/src/testing/label-fixtures';
import { LazyOcrPool } from '@loupe/ocr';
import { WineLabelReader } from './label-reader';

/** A 700×900 label in DejaVu, every field printed; the vintage at `vintageSize` px. */
async function label(vintageSize: number): Promise<{ data: Uint8Array; width: number; height: number }> {
  const lines = [
    { text: 'CHATEAU RIVEL', size: 60 },
    { text: 'Pauillac', size: 40 },
    { text: '2015', size: vintageSize },
    { text: 'Merlot', size: 44 },
    { text: 'Red Wine', size: 32 },
    { text: 'Product of France', size: 28 },
  ];
  const gap = (900 - 140 - lines.reduce((s, l) => s + l.size, 0)) / (lines.length + 1);
  let y = 70 + gap;
  const texts = lines.map((l) => {
    const t = `<text x="350" y="${Math.round(y + l.size * 0.8)}" font-family="DejaVu Serif" font-size="${l.size}" font-weight="bold" text-anchor="middle" fill="#2b1d12">${l.text}</text>`;
    y += l.size + gap;
    return t;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="700" height="900"><rect width="100%" height="100%" fill="#f4ecd8"/>${texts.join('')}</svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** Real tesseract runs (0.2-0.6 s each). */
describe('WineLabelReader', () => {
  const reader = new WineLabelReader(new LazyOcrPool(1));
  afterAll(() => reader.close());

  const stagesOf = async (img: Awaited<ReturnType<typeof label>>, fieldsOnly: boolean) => {
    const stages: string[] = [];
    const reading = await reader.read(img, { fieldsOnly, trace: (stage) => stages.push(stage) });
    return { stages, metadata: reading.metadata };
  };

  it('reads no band again for extract_metadata when the first reading has every field', async () => {
    const img = await label(48);
    const fields = await stagesOf(img, true);
    expect(fields.metadata).toMatchObject({ vintage_year: 2015, variety_type: 'Merlot', color_type: 'red', region_name: 'Pauillac', country_name: 'France' });
    expect(fields.stages).toContain('first reading: tesseract');
    expect(fields.stages).not.toContain('bands');
    // Every line is wanted otherwise (extract_text, indexing, search): the bands are looked for.
    const lines = await stagesOf(img, false);
    expect(lines.stages).toContain('bands');
    expect(lines.metadata).toMatchObject({ vintage_year: 2015, region_name: 'Pauillac' });
  });

  it('still reads the bands when the first reading misses a field (a vintage printed 150 px high)', async () => {
    const { stages, metadata } = await stagesOf(await label(150), true);
    expect(stages).toContain('bands');
    expect(metadata).toMatchObject({ vintage_year: 2015, variety_type: 'Merlot', region_name: 'Pauillac', country_name: 'France' });
  });

  it('reads a label wrapped far round the bottle again laid flat when a field is missing', async () => {
    // The variety's ends are squeezed to a fifth at ±1.4 rad: read as printed, "Sauvignon" loses its first letters.
    const img = wrapOnCylinder(await fullWidthLabel(), 1.4);
    const stages: string[] = [];
    const { metadata } = await reader.read(img, { fieldsOnly: true, trace: (stage) => stages.push(stage) });
    expect(stages).toContain('cylinder');
    expect(metadata).toMatchObject({ variety_type: 'Sauvignon Blanc', region_name: 'Marlborough', country_name: 'New Zealand' });
    const plain = new WineLabelReader(new LazyOcrPool(1), false);
    try {
      expect((await plain.read(img)).metadata.variety_type).toBeUndefined();
    } finally {
      await plain.close();
    }
  });
});
