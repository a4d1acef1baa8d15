import { rgbToGray } from '@loupe/fingerprint';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { badgeSvg } from './testing/badges';
import { toRgbImage } from './testing/label-fixtures';
import { findTextLines } from './text-lines';

async function grey(svg: string) {
  return rgbToGray(await toRgbImage(sharp(Buffer.from(svg))));
}

describe('findTextLines', () => {
  it('finds a name on a coloured ribbon and a light year above it inside a badge, tallest first', async () => {
    const lines = findTextLines(await grey(badgeSvg('NORGOSYL', 1992)));
    expect(lines).toHaveLength(2);
    const [name, year] = lines;
    // The name: bold capitals 66 px, baseline 326, centred on 450; dark on the ribbon.
    expect(name.lightInk).toBe(false);
    expect(name.box.y0).toBeGreaterThan(326 - 66 * 0.85);
    expect(name.box.y1).toBeLessThanOrEqual(326 + 3);
    expect(name.box.x0).toBeLessThan(450 - 100);
    expect(name.box.x1).toBeGreaterThan(450 + 100);
    // The year line: light serif on the ring's dark ground.
    expect(year.lightInk).toBe(true);
    expect(year.box.y0).toBeGreaterThan(212 - 35);
    expect(year.box.y1).toBeLessThanOrEqual(212 + 3);
  });

  it('finds no line in a picture without print: a disc, a ring and a bar', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="600"><rect width="100%" height="100%" fill="#e6eee8"/>
      <circle cx="450" cy="300" r="220" fill="#7a1e6a"/><circle cx="450" cy="300" r="187" fill="none" stroke="#e84a6a" stroke-width="9"/>
      <rect x="186" y="260" width="528" height="80" fill="#e8304a"/></svg>`;
    expect(findTextLines(await grey(svg))).toEqual([]);
  });

  it('leaves out two letters side by side: a line needs three glyphs', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="300"><rect width="100%" height="100%" fill="#fff"/>
      <text x="300" y="180" text-anchor="middle" font-family="DejaVu Sans" font-size="80" fill="#000">OK</text></svg>`;
    expect(findTextLines(await grey(svg))).toEqual([]);
  });
});
