/**
 * Where extract_metadata spends its time on the printed labels (issue 17): decode and normalisation, label
 * detection, each OCR pass (the first reading, the bands' second reading, the whole-photo check) and the metadata,
 * with wall and CPU time per stage. One photo at a time, so the process's CPU time over a stage is that stage's
 * (tesseract's worker threads included); the wall times follow the machine's load, the CPU times do not.
 *
 *   npx tsx tools/bench/wine/profile-extract.ts [--photos N] [--seed N] [--condition flat|bottle]
 */
import os from 'node:os';
import { loadLabelImage, WINE_PREFERRED_SIDE, WineLabelReader } from '@loupe/jobs';
import { mulberry32 } from '@loupe/ocr/src/testing/wine-photos';
import { flag } from '../report';
import { checkFaces, FACES, printedLabelSvg, printedPhoto, printedStyle, type Condition } from './printed-labels';

const PHOTOS = Number(flag('photos') ?? 40);
const SEED = Number(flag('seed') ?? 7);
const ONLY = (flag('condition') ?? '') as Condition | '';

const FIELDS = [
  { producer: 'Chateau Rivel', region: 'Pauillac', country: 'France', variety: 'Cabernet Sauvignon', colorText: 'Vin Rouge' },
  { producer: 'Domaine des Aubes', region: 'Marlborough', country: 'New Zealand', variety: 'Sauvignon Blanc', colorText: 'White Wine' },
  { producer: 'Bodega Arrieta', region: 'Rioja', country: 'Spain', variety: 'Tempranillo', colorText: 'Vino Tinto' },
  { producer: 'Weingut Falkner', region: 'Mosel', country: 'Germany', variety: 'Riesling', colorText: 'White Wine' },
  { producer: 'Tenuta Casale', region: 'Barolo', country: 'Italy', variety: 'Nebbiolo', colorText: 'Vino Rosso' },
];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}

async function main(): Promise<void> {
  checkFaces();
  const rand = mulberry32(SEED);
  const reader = new WineLabelReader();
  const stages = new Map<string, { calls: number; wall: number; cpu: number }>();
  const totalCpu: number[] = [];
  const totalWall: number[] = [];
  const perCall: Array<{ cpu: number; what: string; stages: string[] }> = [];
  try {
    // Starts the pool outside the measured calls: a running worker starts it once.
    await reader.read(await loadLabelImage(await printedPhoto(printedLabelSvg({ ...FIELDS[0], vintage: 2015, extras: [] }, printedStyle(rand, FACES[0])), 'flat', rand, 0).then((p) => p.jpeg), 'warm-up', WINE_PREFERRED_SIDE));
    for (let i = 0; i < PHOTOS; i++) {
      const face = FACES[i % FACES.length];
      const fields = { ...FIELDS[i % FIELDS.length], vintage: 1995 + (i % 29), extras: i % 2 ? ['Estate Bottled'] : [] };
      const condition: Condition = ONLY || (i % 2 === 0 ? 'flat' : 'bottle');
      const photo = await printedPhoto(printedLabelSvg(fields, printedStyle(rand, face)), condition, rand, SEED * 1000 + i);
      const seen = new Set<string>();
      const mine: string[] = [];
      const trace = (stage: string, wall: number, cpu: number) => {
        mine.push(`${stage} ${cpu.toFixed(0)}`);
        const s = stages.get(stage) ?? { calls: 0, wall: 0, cpu: 0 };
        if (!seen.has(stage)) s.calls++;
        seen.add(stage);
        s.wall += wall;
        s.cpu += cpu;
        stages.set(stage, s);
      };
      const wall0 = performance.now();
      const cpu0 = process.cpuUsage();
      const img = await loadLabelImage(photo.jpeg, 'q.jpg', WINE_PREFERRED_SIDE);
      const cpuLoad = process.cpuUsage(cpu0);
      trace('decode and normalise', performance.now() - wall0, (cpuLoad.user + cpuLoad.system) / 1000);
      await reader.read(img, { trace, fieldsOnly: !process.argv.includes('--all-lines') });
      const cpu = process.cpuUsage(cpu0);
      totalCpu.push((cpu.user + cpu.system) / 1000);
      totalWall.push(performance.now() - wall0);
      perCall.push({ cpu: totalCpu[totalCpu.length - 1], what: `${face.family}, ${condition}, ${img.width}x${img.height}`, stages: mine });
    }
  } finally {
    await reader.close();
  }
  const ms = (v: number) => `${v.toFixed(0).padStart(6)} ms`;
  console.log(`${PHOTOS} photos (${ONLY || 'flat and bottle'}), seed ${SEED}; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
  console.log(`per call: CPU p50 ${ms(percentile(totalCpu, 50))}, p95 ${ms(percentile(totalCpu, 95))}, mean ${ms(totalCpu.reduce((a, b) => a + b, 0) / PHOTOS)}; wall p50 ${ms(percentile(totalWall, 50))}, p95 ${ms(percentile(totalWall, 95))}`);
  console.log('stage                                      calls   CPU/call (of all calls)   wall/call');
  for (const [stage, s] of stages) console.log(`  ${stage.padEnd(40)} ${String(s.calls).padStart(4)}  ${ms(s.cpu / PHOTOS)}   ${ms(s.wall / PHOTOS)}`);
  console.log('slowest calls (CPU ms per stage):');
  for (const c of perCall.sort((a, b) => b.cpu - a.cpu).slice(0, Math.max(2, Math.ceil(PHOTOS / 10)))) console.log(`  ${c.cpu.toFixed(0)} ms: ${c.what}: ${c.stages.join(', ')}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
