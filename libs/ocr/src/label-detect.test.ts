import { describe, expect, it } from 'vitest';
import { intersectionOverUnion } from './box';
import sharp from 'sharp';
import { detectLabel, labelAroundText } from './label-detect';
import { renderBottleScene, renderLabel, toRgbImage } from './testing/label-fixtures';

describe('label detection', () => {
  it.each([7, 11, 42])('finds the label on a dark bottle over a cluttered noisy background (seed %i)', async (seed) => {
    const { image, labelBox } = await renderBottleScene(seed);
    const box = detectLabel(image);
    expect(box).not.toBeNull();
    expect(intersectionOverUnion(box!, labelBox)).toBeGreaterThanOrEqual(0.7);
  });

  it('finds nothing in pure noise', async () => {
    let seed = 12345;
    const data = new Uint8Array(300 * 400 * 3).map(() => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed >>> 24;
    });
    expect(detectLabel({ data, width: 300, height: 400 })).toBeNull();
  });

  it('finds nothing to crop when the photo is the label edge to edge', async () => {
    expect(detectLabel(await renderLabel())).toBeNull();
  });
});

describe('the label round its text', () => {
  /** A 350×450 label (DejaVu, thin printed border) centred on a 700×750 backdrop; its text block and box. */
  async function framed(paper: string, ink: string, backdrop: string) {
    const label =
      `<svg xmlns="http://www.w3.org/2000/svg" width="350" height="450"><rect width="100%" height="100%" fill="${paper}"/>` +
      `<rect x="11" y="11" width="328" height="428" fill="none" stroke="${ink}" stroke-width="2"/>` +
      `<text x="175" y="120" font-family="DejaVu Serif" font-size="30" text-anchor="middle" fill="${ink}">Domaine Rivel</text>` +
      `<text x="175" y="250" font-family="DejaVu Serif" font-size="70" text-anchor="middle" fill="${ink}">2015</text>` +
      `<text x="175" y="360" font-family="DejaVu Serif" font-size="16" text-anchor="middle" fill="${ink}">Product of France</text></svg>`;
    const png = await sharp(Buffer.from(label)).png().toBuffer();
    const image = await toRgbImage(sharp({ create: { width: 700, height: 750, channels: 3, background: backdrop } }).composite([{ input: png, left: 175, top: 150 }]));
    return { image, text: { x0: 175 + 100, y0: 150 + 95, x1: 175 + 250, y1: 150 + 365 }, truth: { x0: 175, y0: 150, x1: 525, y1: 600 } };
  }

  it.each([
    ['cream stock on a dark backdrop', '#f4ecd8', '#2b1d12', '#1c1a1e'],
    ['dark stock on a dark backdrop of another colour', '#14233a', '#f1e6c8', '#3a2a18'],
    ['dark stock on a light wall', '#2a1020', '#d9bd72', '#c9c2b5'],
  ])('grows the text block to the label, across its printed border (%s)', async (_name, paper, ink, backdrop) => {
    const { image, text, truth } = await framed(paper, ink, backdrop);
    const box = labelAroundText(image, text);
    expect(intersectionOverUnion(box, truth)).toBeGreaterThanOrEqual(0.95);
  });

  it('stays on a label that fills the photo', async () => {
    const { image } = await framed('#f4ecd8', '#2b1d12', '#f4ecd8');
    expect(labelAroundText(image, { x0: 275, y0: 245, x1: 425, y1: 515 })).toEqual({ x0: 0, y0: 0, x1: 700, y1: 750 });
  });
});
