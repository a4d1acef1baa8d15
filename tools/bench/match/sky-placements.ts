/**
 * Placements of night skies: astronomy photos of the matching benchmark's dataset, turned 15-20° (their upright copies,
 * as a search makes them) and cropped to 25 and 50 %, placed by their pixels (`confirmPlacedCrop`, as the placement
 * second chance does, upright copies judged as UPRIGHT_CHECK) in their own image and in eight other astronomy images,
 * each read as a search reads a stored copy (half its stored size). Counts the placements confirmed in their own image
 * (true) and in the others (false). Two skies of one layout (a bright galaxy on black) agree in colour; their stars
 * tell them apart (`point-field.ts`). No search runs: a hundred photos take a few minutes.
 *
 *   npx tsx tools/bench/match/sky-placements.ts [--photos 100] [--from 0]
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { confirmPlacedCrop, extractFeatures, rgbToGray, seededRandom, uprightEvidence, UPRIGHT_CHECK, type DenseCheck, type Features, type GrayImage, type RgbImage } from '@loupe/fingerprint';
import { normalizeImage } from '@loupe/imaging';
import { flag, machine, shuffle } from '../report';
import { loadDataset, type Photo } from './dataset';

const PHOTOS = Number(flag('photos') ?? 100);
const FROM = Number(flag('from') ?? 0);
/** As ingest normalises collection images and a search reads them back for its pixel checks. */
const STORED_SIDE = 600;
const READ_SIDE = 300;
const OTHERS = 8;

interface Sky {
  photo: Photo;
  data: Buffer;
  target: { rgb: RgbImage; features: Features };
}

interface Query {
  kind: 'upright' | 'as is';
  edit: string;
  evidence: { rgb: RgbImage; gray: GrayImage; features: Features };
  check: DenseCheck;
}

const rgbOnly = ({ data, width, height }: RgbImage): RgbImage => ({ data, width, height });

async function skyOf(photo: Photo): Promise<Sky> {
  const data = await readFile(photo.file);
  const stored = rgbOnly(await normalizeImage(data, { preferredSide: STORED_SIDE }));
  const read = rgbOnly(await normalizeImage(data, { preferredSide: READ_SIDE }));
  return { photo, data, target: { rgb: read, features: await extractFeatures(rgbToGray(stored)) } };
}

async function queriesOf(sky: Sky, rnd: () => number): Promise<Query[]> {
  const { width, height } = sky.photo;
  const queries: Query[] = [];
  const turned: Array<[string, () => Promise<Buffer>]> = [
    ['rotate +15°', () => sharp(sky.data).rotate(15, { background: '#808080' }).jpeg({ quality: 90 }).toBuffer()],
    ['rotate -20°', () => sharp(sky.data).rotate(-20, { background: '#808080' }).jpeg({ quality: 90 }).toBuffer()],
    [
      'crop 50 % + rotate 20° + JPEG q50',
      async () => {
        const [w, h] = [Math.round(width * 0.7), Math.round(height * 0.7)];
        const cut = await sharp(sky.data).extract({ left: Math.floor((width - w) / 3), top: Math.floor((height - h) / 2), width: w, height: h }).toBuffer();
        return sharp(cut).rotate(20, { background: '#808080' }).jpeg({ quality: 50 }).toBuffer();
      },
    ],
  ];
  for (const [edit, make] of turned) {
    const rgb = rgbOnly(await normalizeImage(await make(), { preferredSide: STORED_SIDE }));
    const upright = await uprightEvidence(rgb, rgbToGray(rgb));
    if (upright) queries.push({ kind: 'upright', edit, evidence: { rgb: upright.rgb, gray: upright.gray, features: upright.features }, check: UPRIGHT_CHECK });
  }
  for (const share of [0.25, 0.5]) {
    const [w, h] = [Math.round(width * Math.sqrt(share)), Math.round(height * Math.sqrt(share))];
    const box = { left: Math.floor((width - w) * rnd()), top: Math.floor((height - h) * rnd()), width: w, height: h };
    const rgb = rgbOnly(await normalizeImage(await sharp(sky.data).extract(box).jpeg({ quality: 70 }).toBuffer(), { preferredSide: STORED_SIDE }));
    const gray = rgbToGray(rgb);
    queries.push({ kind: 'as is', edit: `crop ${share * 100} %`, evidence: { rgb, gray, features: await extractFeatures(gray) }, check: {} });
  }
  return queries;
}

async function main(): Promise<void> {
  const started = performance.now();
  const astronomy = (await loadDataset()).photos.filter((p) => p.family === 'astronomy');
  const skies: Sky[] = [];
  for (const photo of shuffle(astronomy, seededRandom(5)).slice(FROM, FROM + PHOTOS)) skies.push(await skyOf(photo));
  const rnd = seededRandom(9);
  const counts = { upright: { queries: 0, others: 0, confirmedOwn: 0, confirmedOthers: 0 }, 'as is': { queries: 0, others: 0, confirmedOwn: 0, confirmedOthers: 0 } };
  const wrong: string[] = [];
  const missed: string[] = [];
  for (const [i, sky] of skies.entries()) {
    for (const q of await queriesOf(sky, rnd)) {
      const c = counts[q.kind];
      c.queries++;
      const others = shuffle(skies.filter((_, k) => k !== i), rnd).slice(0, OTHERS);
      for (const target of [sky, ...others]) {
        const confirmed = (await confirmPlacedCrop(q.evidence, target.target, q.check)) !== null;
        if (target === sky) {
          if (confirmed) c.confirmedOwn++;
          else missed.push(`${q.edit} of ${sky.photo.id}`);
        } else {
          c.others++;
          if (confirmed) {
            c.confirmedOthers++;
            wrong.push(`${q.edit} of ${sky.photo.id} → ${target.photo.id}`);
          }
        }
      }
    }
  }
  console.log(`${machine()}; ${skies.length} astronomy photos from ${FROM}, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  console.log('| queries | placed in their own image: confirmed | placed in other images: confirmed |');
  console.log('|---|---|---|');
  for (const [kind, c] of Object.entries(counts)) console.log(`| ${c.queries} ${kind === 'upright' ? 'upright copies of turned photos' : 'crops (25, 50 %)'} | ${c.confirmedOwn} of ${c.queries} | ${c.confirmedOthers} of ${c.others} |`);
  console.log(`confirmed in another image: ${wrong.join('; ') || 'none'}`);
  console.log(`not confirmed in their own image: ${missed.join('; ') || 'none'}`);
}

void main();
