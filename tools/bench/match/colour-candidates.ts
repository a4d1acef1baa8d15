/**
 * How often the colour candidates hold a query's image: the matching benchmark's large-sample family queries (the
 * same images, edits and crop boxes as `run.ts --families 18 --family-per-edit 18`) and a logo overlay and a quarter
 * crop of every fourth photo, ranked against a collection of those family images, the photos and as many drawn scenes
 * as the benchmark's 1k collection holds. Per family and edit: how many queries had their image among the first 3 and
 * the first 8 (COLOUR_CANDIDATES, PLAIN_COLOUR_CANDIDATES), ranked by colour sets (`colourLikeness`), or the first
 * COLOUR_SHORTLIST by sets ranked again by shares (`colourOverlap`) or by both, as a search does. Colour only: no
 * search runs, so a ranking is compared in a minute.
 *
 *   npx tsx tools/bench/match/colour-candidates.ts [--shortlists 128,256]
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { colourLikeness, colourOverlap, colourSet, colourShares, decodeColourShares, encodeColourShares } from '@loupe/fingerprint';
import { normalizeImage } from '@loupe/imaging';
import { COLOUR_SHORTLIST } from '@loupe/jobs/src/match/collection-index';
import { sceneSvg } from '../../../apps/gateway/test/images';
import { shuffle } from '../report';
import { loadDataset } from './dataset';
import { EDITS, FAMILY_EDITS, mulberry32 } from './edits';
import { FAMILIES, familyImages, type Split } from './families';

/** As `run.ts` normalises queries and ingest normalises collection images. */
const PREFERRED_SIDE = 600;
const IMAGES_PER_SPLIT = 18;
const QUERIES_PER_EDIT = 18;
/** Drawn scenes of the benchmark's 1k collection (1,000 less its photos and family images). */
const SCENES = 598;

interface Colours {
  set: bigint;
  shares: Float64Array;
}

async function coloursOf(data: Buffer, stored: boolean): Promise<Colours> {
  const rgb = await normalizeImage(data, { preferredSide: PREFERRED_SIDE });
  const shares = colourShares(rgb);
  // A collection image's shares as a search reads them back.
  return { set: colourSet(rgb), shares: stored ? decodeColourShares(encodeColourShares(shares)) : shares };
}

type Ranking = (query: Colours, collection: ReadonlyArray<{ id: string } & Colours>) => string[];

const bySets: Ranking = (query, collection) =>
  collection
    .map((image) => ({ id: image.id, likeness: colourLikeness(query.set, image.set) }))
    .sort((a, b) => b.likeness - a.likeness)
    .map(({ id }) => id);

function rankedAgain(alikeness: (query: Colours, image: Colours) => number, shortlistLength = COLOUR_SHORTLIST): Ranking {
  return (query, collection) => {
    const shortlist = new Set(bySets(query, collection).slice(0, shortlistLength));
    return collection
      .filter((image) => shortlist.has(image.id))
      .map((image) => ({ id: image.id, alikeness: alikeness(query, image) }))
      .sort((a, b) => b.alikeness - a.alikeness)
      .map(({ id }) => id);
  };
}

const setsAndShares = (q: Colours, image: Colours) => colourLikeness(q.set, image.set) + colourOverlap(q.shares, image.shares);
/** `--shortlists 32,256`: the sets + shares ranking also over those shortlist lengths, to compare them. */
const otherShortlists = (process.argv.includes('--shortlists') ? process.argv[process.argv.indexOf('--shortlists') + 1].split(',').map(Number) : []).filter((n) => n !== COLOUR_SHORTLIST);
const RANKINGS: Record<string, Ranking> = {
  sets: bySets,
  shares: rankedAgain((q, image) => colourOverlap(q.shares, image.shares)),
  'sets + shares': rankedAgain(setsAndShares),
  ...Object.fromEntries(otherShortlists.map((n) => [`sets + shares of the first ${n}`, rankedAgain(setsAndShares, n)])),
};

async function main(): Promise<void> {
  const collection: Array<{ id: string } & Colours> = [];
  const queries: Array<{ group: string; truth: string } & Colours> = [];
  for (const family of FAMILIES) {
    for (const split of ['tune', 'holdout'] as Split[]) {
      const images = await familyImages(family, split, IMAGES_PER_SPLIT);
      for (const image of images) collection.push({ id: image.id, ...(await coloursOf(image.data, true)) });
      for (const [ei, edit] of FAMILY_EDITS.entries()) {
        // The benchmark's draw (run.ts, seed 1): the same images and crop boxes.
        const erand = mulberry32(3000 + FAMILIES.indexOf(family) * 100 + ei + (split === 'holdout' ? 50 : 0));
        const picked = shuffle(images, erand);
        for (let k = 0; k < QUERIES_PER_EDIT; k++) {
          const image = picked[k % picked.length];
          const edited = await edit.apply(image.data, image.width, image.height, erand);
          queries.push({ group: `${family} / ${edit.name}`, truth: image.id, ...(await coloursOf(edited.data, false)) });
        }
      }
    }
  }
  const { photos } = await loadDataset();
  const photoEdits = EDITS.filter((e) => e.name === 'logo overlay' || e.name === 'crop 25 %');
  for (const [i, photo] of photos.entries()) {
    const data = await readFile(photo.file);
    collection.push({ id: photo.id, ...(await coloursOf(data, true)) });
    if (i % 4 !== 0) continue;
    for (const edit of photoEdits) {
      const edited = await edit.apply(data, photo.width, photo.height, mulberry32(i));
      queries.push({ group: `photos / ${edit.name}`, truth: photo.id, ...(await coloursOf(edited.data, false)) });
    }
  }
  for (let i = 0; i < SCENES; i++) {
    const scene = await sharp(Buffer.from(sceneSvg(10_000 + i, 1300, 860))).jpeg({ quality: 88 }).toBuffer();
    collection.push({ id: `scene-${i}`, ...(await coloursOf(scene, true)) });
  }

  const names = Object.keys(RANKINGS);
  const counts = new Map<string, Record<string, { first3: number; first8: number; n: number }>>();
  for (const query of queries) {
    for (const group of [query.group, query.group.startsWith('photos') ? 'photos, all' : 'families, all']) {
      const row = counts.get(group) ?? Object.fromEntries(names.map((n) => [n, { first3: 0, first8: 0, n: 0 }]));
      for (const name of names) {
        const rank = RANKINGS[name](query, collection).indexOf(query.truth);
        row[name].n++;
        if (rank >= 0 && rank < 3) row[name].first3++;
        if (rank >= 0 && rank < 8) row[name].first8++;
      }
      counts.set(group, row);
    }
  }
  console.log(`collection ${collection.length} images, ${queries.length} queries; cells: image among the first 3 / first 8, of n`);
  console.log(`| queries | ${names.join(' | ')} |`);
  console.log(`|---|${names.map(() => '---|').join('')}`);
  const totalsLast = [...counts].sort(([a], [b]) => Number(a.endsWith(', all')) - Number(b.endsWith(', all')));
  for (const [group, row] of totalsLast) console.log(`| ${group} | ${names.map((n) => `${row[n].first3} / ${row[n].first8} of ${row[n].n}`).join(' | ')} |`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
