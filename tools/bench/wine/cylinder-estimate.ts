/**
 * How well the cylinder of a bottle photo is read from its print (libs/ocr/src/cylinder.ts), without OCR: printed
 * labels (printed-labels.ts) photographed flat and wrapped over known half-angles; for each, the squeeze the
 * estimate finds at the print's far side, and how often it is under the unwrap threshold (UNWRAP_BELOW_SQUEEZE).
 *
 *   npx tsx tools/bench/wine/cylinder-estimate.ts [--photos N] [--seed N]
 */
import { rgbToGray } from '@loupe/fingerprint';
import { loadLabelImage, WINE_PREFERRED_SIDE } from '@loupe/jobs';
import { detectLabel } from '@loupe/ocr';
import { estimateCylinder } from '@loupe/ocr/src/cylinder';
import { stretchContrast } from '@loupe/ocr/src/grey';
import { UNWRAP_BELOW_SQUEEZE } from '@loupe/ocr/src/ocr-prepare';
import { mulberry32 } from '@loupe/ocr/src/testing/wine-photos';
import { flag } from '../report';
import { checkFaces, FACES, printedLabelSvg, printedPhoto, printedStyle } from './printed-labels';

const PHOTOS = Number(flag('photos') ?? 26);
const SEED = Number(flag('seed') ?? 3);
const FIELDS = { producer: 'Domaine des Aubes Rivel', region: 'Marlborough', country: 'New Zealand', variety: 'Sauvignon Blanc', colorText: 'White Wine', vintage: 2016, extras: ['Estate Bottled'] };

async function main(): Promise<void> {
  checkFaces();
  const rand = mulberry32(SEED);
  const cases: Array<{ name: string; condition: 'flat' | 'bottle'; curvature: [number, number] }> = [
    { name: 'flat, framed on backdrop', condition: 'flat', curvature: [0, 0] },
    { name: 'bottle, 0.2-0.6 rad', condition: 'bottle', curvature: [0.2, 0.6] },
    { name: 'bottle, 0.9-1.15 rad', condition: 'bottle', curvature: [0.9, 1.15] },
    { name: 'bottle, 1.15-1.4 rad', condition: 'bottle', curvature: [1.15, 1.4] },
  ];
  console.log(`${PHOTOS} photos a case, seed ${SEED}; unwrap below a squeeze of ${UNWRAP_BELOW_SQUEEZE}`);
  for (const c of cases) {
    const squeezes: number[] = [];
    for (let i = 0; i < PHOTOS; i++) {
      const svg = printedLabelSvg(FIELDS, printedStyle(rand, FACES[i % FACES.length]));
      const photo = await printedPhoto(svg, c.condition, rand, SEED * 1000 + i, c.curvature);
      const img = await loadLabelImage(photo.jpeg, 'q.jpg', WINE_PREFERRED_SIDE);
      const box = detectLabel(img) ?? undefined;
      const fit = estimateCylinder(stretchContrast(rgbToGray(img, box)));
      squeezes.push(fit ? fit.edgeSqueeze : NaN);
    }
    const known = squeezes.filter((s) => !Number.isNaN(s)).sort((a, b) => a - b);
    const q = (p: number) => known[Math.min(known.length - 1, Math.floor(p * known.length))]?.toFixed(2);
    const unwrapped = known.filter((s) => s < UNWRAP_BELOW_SQUEEZE).length;
    console.log(`  ${c.name.padEnd(26)} squeeze at the print's side: p10 ${q(0.1)}, median ${q(0.5)}, p90 ${q(0.9)}; unwrapped ${unwrapped}/${PHOTOS}; no estimate ${PHOTOS - known.length}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
