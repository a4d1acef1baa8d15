/**
 * Wine-label benchmark (issue 5): field accuracy of extract_metadata (vintage, variety, region, country, color),
 * label_rect IoU, search recall@1 among a collection with near-twins (same producer, another vintage or variety),
 * and time per call, through the job processors the workers run, in embedded mode (PGlite + folder blobs).
 *
 * Labels are rendered from SVG (3 layouts, serif and sans-serif, random colours, known fields drawn from the OCR
 * dictionaries), put on a bottle and photographed: cylinder wrap, perspective, glare, blur, JPEG (wine-photos.ts).
 * The collection holds the flat labels; queries are photos of some of them.
 *
 *   npx tsx tools/bench/wine/run.ts [--labels N] [--queries N] [--seed N] [--printed] [--no-search] [--verbose]
 *     [--condition flat|bottle] [--curvature lo,hi] [--no-unwrap | --always-unwrap]
 *
 * --printed (issue 17): the labels as wineries print them (printed-labels.ts: 26 faces of Debian's font packages,
 * 10 used in tuning, 10 held out, 6 never rendered before the final runs, text 20-160 px on a 700×900 label, a quarter light on dark stock), photographed
 * flat on a dark backdrop (rotated ±4°, JPEG 70-90) or on a bottle (cylinder, perspective, glare, blur); the variety
 * is printed under any of its names (synonyms accepted); every field is reported per category.
 *   Quick (~2 min on 2 cores): --labels 120 --queries 40 (the default)
 *   Full (~17 min on 2 cores under load): --labels 1000 --queries 200
 */
import { computeThreads, createProcessors, JobKind, WineLabelReader, stagingKey, WINE_PREFERRED_SIDE, type IngestPayload, type WineExtractPayload, type WineExtractResult, type IngestResult, type WineSearchPayload, type WineSearchResult } from '@loupe/jobs';
import { DEFAULT_PREPARE, intersectionOverUnion, LazyOcrPool, type PixelBox } from '@loupe/ocr';
import { LabelSpec, mulberry32, wineBottlePhoto, wineLabelJpeg } from '@loupe/ocr/src/testing/wine-photos';
import { loadConfig, openInfrastructure } from '@loupe/runtime';
import { findContentBox, normalizeImage } from '@loupe/imaging';
import sharp from 'sharp';
import { BOTTLE_CURVATURE, checkFaces, FACES, printedLabelSvg, printedPhoto, printedStyle, sizeClass, type Condition, type PrintedStyle } from './printed-labels';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { flag } from '../report';

const LABELS = Number(flag('labels') ?? 120);
const QUERIES = Number(flag('queries') ?? 40);
const SEED = Number(flag('seed') ?? 1);
const PRINTED = process.argv.includes('--printed');
/** Fields and label_rect only (no collection search): half the time, for tuning the reader. */
const NO_SEARCH = process.argv.includes('--no-search');
/** --condition flat|bottle: every query photo of that kind (default: half each). */
const CONDITION = (() => {
  const i = process.argv.indexOf('--condition');
  return i > 0 ? (process.argv[i + 1] as Condition) : undefined;
})();
/** --curvature lo,hi: half-angle range (radians) of bottle photos' wrap, e.g. 0.9,1.4 for labels wrapped far round. */
const CURVATURE = (() => {
  const i = process.argv.indexOf('--curvature');
  return i > 0 ? (process.argv[i + 1].split(',').map(Number) as [number, number]) : BOTTLE_CURVATURE;
})();
/**
 * --no-unwrap: the reader never reads a label again laid flat (WineLabelReader's unwrapWrapped); --always-unwrap:
 * every label's cylinder is estimated and squeezed ones are unwrapped before the first reading. To measure both.
 */
const UNWRAP_WRAPPED = !process.argv.includes('--no-unwrap');
if (process.argv.includes('--always-unwrap')) DEFAULT_PREPARE.unwrap = true;
/** Every printed query's misses with the tokens read, and label_rect misses. */
const VERBOSE = process.argv.includes('--verbose');
const rand = mulberry32(SEED);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];

const fold = (s: unknown) => String(s ?? '').normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

const DATA = path.resolve(__dirname, '../../../libs/ocr/data');
const grapes = JSON.parse(readFileSync(path.join(DATA, 'grape-varieties.json'), 'utf8')) as { red: string[][]; white: string[][] };
const regionsByCountry = (JSON.parse(readFileSync(path.join(DATA, 'wine-regions.json'), 'utf8')) as { countries: Record<string, Record<string, string[]>> }).countries;
/** Region (appellations and regions, canonical spelling = first of '|') with its country, ASCII only for the eng model. */
const REGIONS: Array<{ region: string; country: string }> = Object.entries(regionsByCountry).flatMap(([country, regions]) =>
  Object.entries(regions).flatMap(([region, apps]) => [region, ...apps].map((r) => ({ region: r.split('|')[0], country }))),
).filter((r) => /^[A-Za-z' -]+$/.test(r.region) && /^[A-Za-z ]+$/.test(r.country));
const VARIETIES = {
  red: grapes.red.map((g) => g[0]).filter((g) => /^[A-Za-z' -]+$/.test(g)),
  white: grapes.white.map((g) => g[0]).filter((g) => /^[A-Za-z' -]+$/.test(g)),
};
/** Every ASCII spelling of a grape (canonical and synonyms) with the canonical name of its group. */
const SPELLINGS = {
  red: grapes.red.flatMap((g) => g.filter((n) => /^[A-Za-z' -]+$/.test(n)).map((n) => ({ printed: n, canonical: g[0] }))),
  white: grapes.white.flatMap((g) => g.filter((n) => /^[A-Za-z' -]+$/.test(n)).map((n) => ({ printed: n, canonical: g[0] }))),
};
const GRAPE_GROUP = new Map<string, number>([...grapes.red, ...grapes.white].flatMap((g, i) => g.map((n) => [fold(n), i] as [string, number])));
const HOUSES = ['Domaine', 'Chateau', 'Bodegas', 'Tenuta', 'Quinta', 'Weingut', 'Cantina', 'Clos', 'Estate', 'Cellars', 'Vina', 'Maison'];
const NAMES = ['Rivel', 'Alder', 'Montcalm', 'Serrano', 'Bellavista', 'Oakridge', 'Vasquez', 'Lindqvist', 'Marchetti', 'Harrow', 'Solenne', 'Brightwater', 'Corvo', 'Delacroix', 'Falkner', 'Greystone', 'Hollis', 'Ivory Hill', 'Juniper', 'Kestrel', 'Larkspur', 'Morrow', 'Northcote', 'Ostara', 'Pellegrin', 'Quarry Lane', 'Redfern', 'Stonebridge', 'Tamsin', 'Valmont', 'Westbrook', 'Yarrow'];
const PAPERS = ['#f4ecd8', '#ffffff', '#efe6cf', '#f7f3ea', '#e9e2d0'];
const INKS = ['#2b1d12', '#1a1a1a', '#23313f', '#3b2414'];
const ACCENTS = ['#7b2d26', '#24476b', '#5b1f3a', '#2f5d3a', '#8a6d3b', '#4b3f72'];
const COLOR_WORDS = { red: ['Red Wine', 'Vin Rouge', 'Vino Rosso', 'Vino Tinto'], white: ['White Wine', 'Vin Blanc', 'Vino Bianco', 'Vino Blanco'] };
const EXTRAS = ['Estate Bottled', 'Reserva', 'Grand Vin', '750 ml 13.5% vol', 'Since 1887', 'Old Vines', 'Barrel Aged'];

interface Entry {
  filepath: string;
  spec: LabelSpec;
  color: 'red' | 'white';
  /** --printed: how the label is printed and the SVG of it. */
  printed?: { style: PrintedStyle; svg: string };
}

/** --printed: the same fields, printed in a face of the font packages; the variety under any of its names. */
function printEntry(entry: Entry, style: PrintedStyle): Entry {
  const spelling = pick(SPELLINGS[entry.color].filter((s) => fold(s.canonical) === fold(entry.spec.variety)));
  const spec = { ...entry.spec, variety: spelling?.printed ?? entry.spec.variety };
  const svg = printedLabelSvg(
    { producer: spec.producer, region: spec.region!, country: spec.country!, variety: spec.variety!, vintage: spec.vintage!, colorText: spec.colorText!, extras: spec.extras ?? [] },
    style,
  );
  return { ...entry, spec, printed: { style, svg } };
}

/** Producers with 1-3 labels each: the extra ones are near-twins (another vintage, or another variety). */
function makeCollection(n: number): Entry[] {
  const out: Entry[] = [];
  let producer = 0;
  while (out.length < n) {
    const color = rand() < 0.6 ? 'red' : 'white';
    const { region, country } = pick(REGIONS);
    const base: LabelSpec = {
      producer: `${pick(HOUSES)} ${pick(NAMES)}${producer % 3 === 0 ? '' : ` ${pick(NAMES)}`}`,
      region, country,
      variety: pick(VARIETIES[color]),
      vintage: 1995 + Math.floor(rand() * 29),
      colorText: pick(COLOR_WORDS[color]),
      extras: rand() < 0.6 ? [pick(EXTRAS)] : [],
      layout: Math.floor(rand() * 3),
      font: rand() < 0.5 ? 'serif' : 'sans-serif',
      paper: pick(PAPERS), ink: pick(INKS), accent: pick(ACCENTS),
    };
    const twins = rand() < 0.5 ? Math.floor(rand() * 3) : 0;
    const specs = [base];
    for (let t = 0; t < twins; t++) {
      specs.push(rand() < 0.5 ? { ...base, vintage: base.vintage! + t + 1 } : { ...base, variety: pick(VARIETIES[color].filter((v) => v !== base.variety)) });
    }
    // Twins of a printed label keep its face and style: the same producer prints its range alike.
    const style = PRINTED ? printedStyle(rand, pick(FACES)) : undefined;
    for (const spec of specs) {
      if (out.length >= n) break;
      const entry: Entry = { filepath: `p${producer}/label-${out.length}.jpg`, spec, color };
      out.push(style ? printEntry(entry, style) : entry);
    }
    producer++;
  }
  return out;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}


/**
 * A printed label's query photo, with where the label is in the frame extract_metadata measures label_rect in:
 * the photo normalised to the wine side and with its solid borders cropped (docs/protocol.md §8).
 */
async function printedQueryPhoto(svg: string, condition: Condition, seed: number): Promise<{ jpeg: Buffer; width: number; height: number; labelBox: { x0: number; y0: number; x1: number; y1: number }; frame: { x0: number; y0: number; x1: number; y1: number } }> {
  const photo = await printedPhoto(svg, condition, rand, seed, CURVATURE);
  const normalized = await normalizeImage(photo.jpeg, { preferredSide: WINE_PREFERRED_SIDE });
  const crop = findContentBox(normalized);
  const s = photo.width / normalized.width;
  return { ...photo, frame: { x0: crop.left * s, y0: crop.top * s, x1: crop.right * s, y1: crop.bottom * s } };
}

async function main(): Promise<void> {
  if (PRINTED) checkFaces();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-wine-bench-'));
  const infra = await openInfrastructure(loadConfig({ DATA_DIR: dir, PORT: '0' }));
  // The worker's processors (createWorkerServices), with the label reader's unwrap as the flags say.
  const compute = computeThreads();
  const ocr = new LazyOcrPool();
  const labelReader = new WineLabelReader(ocr, UNWRAP_WRAPPED);
  const processors = createProcessors(infra, compute, ocr, labelReader);
  const run = <R>(kind: string, payload: unknown) => processors[kind](payload, { kind, group: 'bench', attempt: 1 }) as Promise<R>;
  const accountId = (await infra.accounts.ensure('bench')).id;
  const stage = async (data: Buffer) => {
    const key = stagingKey();
    await infra.blobs.put(key, data);
    return key;
  };
  try {
    const started = performance.now();
    const collection = makeCollection(LABELS);
    console.log(`collection: ${collection.length} labels of ${new Set(collection.map((e) => e.filepath.split('/')[0])).size} producers`);
    const addTimes: number[] = [];
    for (let i = 0; i < (NO_SEARCH ? 0 : collection.length); i += 10) {
      const batch = collection.slice(i, i + 10);
      const items = await Promise.all(batch.map(async (e) => ({ filepath: e.filepath, image_id: null, staged_key: await stage(e.printed ? await sharp(Buffer.from(e.printed.svg)).jpeg({ quality: 90 }).toBuffer() : await wineLabelJpeg(e.spec)) })));
      const payload: IngestPayload = { account_id: accountId, account: 'bench', service: 'wine', items, on_existing: 'refuse', preferred_side: WINE_PREFERRED_SIDE, crop_borders: true };
      const t0 = performance.now();
      const result = await run<IngestResult>(JobKind.Ingest, payload);
      addTimes.push((performance.now() - t0) / batch.length);
      if (result.errors.length) console.log(result.errors);
      if (i % 100 === 0) console.log(`added ${i + batch.length}`);
    }

    const queries = Array.from({ length: QUERIES }, () => pick(collection));
    const fields = { vintage: 0, variety: 0, region: 0, country: 0, color: 0 };
    const ious: number[] = [];
    const extractTimes: number[] = [];
    /** CPU time of the whole process (tesseract's worker threads included) per call: what load on the machine does not change. */
    const extractCpu: number[] = [];
    const searchTimes: number[] = [];
    let hits = 0;
    let twinQueries = 0;
    let twinHits = 0;
    const misses: string[] = [];
    const byCategory: Record<string, { n: number; vintage: number; variety: number; region: number; country: number; color: number; iou: number }> = {};
    const fieldMisses: string[] = [];
    /** score_text of the results (top 10) against the photo: its own label, its near-twins, other producers' labels. */
    const textOwn: number[] = [];
    const textTwin: number[] = [];
    const textOther: number[] = [];
    for (const [qi, entry] of queries.entries()) {
      const coin = rand();
      const condition: Condition = CONDITION ?? (coin < 0.5 ? 'flat' : 'bottle');
      const photo = entry.printed
        ? await printedQueryPhoto(entry.printed.svg, condition, SEED * 1000 + qi)
        : await wineBottlePhoto(entry.spec, {
            seed: SEED * 1000 + qi,
            perspective: rand() * 0.05,
            curvature: CURVATURE[0] + rand() * (CURVATURE[1] - CURVATURE[0]),
            blur: rand() * 1.5,
            glare: rand() < 0.5 ? rand() * 0.6 : 0,
            jpegQuality: 40 + Math.floor(rand() * 50),
            width: 700 + Math.floor(rand() * 500),
          });
      const extractPayload: WineExtractPayload = { account_id: accountId, service: 'wine', op: 'metadata', images: [{ staged_key: await stage(photo.jpeg), label: 'q.jpg' }], preferred_side: WINE_PREFERRED_SIDE };
      let t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const extracted = await run<WineExtractResult>(JobKind.WineExtract, extractPayload);
      extractTimes.push(performance.now() - t0);
      const cpu = process.cpuUsage(cpu0);
      extractCpu.push((cpu.user + cpu.system) / 1000);
      const meta = extracted.items[0]?.metadata ?? {};
      const right = {
        vintage: meta.vintage_year === entry.spec.vintage,
        // Synonyms accepted: a label printed "Shiraz" is read right as Shiraz or as Syrah.
        variety: PRINTED ? meta.variety_type !== undefined && GRAPE_GROUP.get(fold(meta.variety_type)) === GRAPE_GROUP.get(fold(entry.spec.variety)) : fold(meta.variety_type) === fold(entry.spec.variety),
        region: fold(meta.region_name) === fold(entry.spec.region),
        country: fold(meta.country_name ?? meta.country_name_inferred) === fold(entry.spec.country),
        color: meta.color_type === entry.color,
      };
      for (const key of Object.keys(fields) as Array<keyof typeof fields>) if (right[key]) fields[key]++;
      const rect = meta.label_rect as { left: number; right: number; top: number; bottom: number } | undefined;
      // label_rect is in percent of the border-cropped image (docs/protocol.md §8): the truth is put in that frame.
      const frame: PixelBox = (photo as { frame?: PixelBox }).frame ?? { x0: 0, y0: 0, x1: photo.width, y1: photo.height };
      const fw = frame.x1 - frame.x0;
      const fh = frame.y1 - frame.y0;
      const iou = rect ? intersectionOverUnion({ x0: frame.x0 + (rect.left / 100) * fw, x1: frame.x0 + (rect.right / 100) * fw, y0: frame.y0 + (rect.top / 100) * fh, y1: frame.y0 + (rect.bottom / 100) * fh }, photo.labelBox) : 0;
      ious.push(iou);
      if (entry.printed) {
        const { style } = entry.printed;
        const categories = [
          `face ${style.face.kind}`,
          `${style.face.split === 'tune' ? 'tuning' : style.face.split === 'heldout' ? 'held-out' : 'unseen'} faces`,
          sizeClass(style.vintageSize),
          style.dark ? 'light on dark stock' : 'dark on light stock',
          condition === 'flat' ? 'flat, framed on backdrop' : `on a bottle, wrap ${CURVATURE.join('-')} rad`,
        ];
        for (const c of categories) {
          const row = (byCategory[c] ??= { n: 0, vintage: 0, variety: 0, region: 0, country: 0, color: 0, iou: 0 });
          row.n++;
          for (const key of Object.keys(fields) as Array<keyof typeof fields>) if (right[key]) row[key]++;
          if (iou >= 0.7) row.iou++;
        }
        const wrong = (['vintage', 'variety', 'region', 'country'] as const).filter((k) => !right[k]);
        if (wrong.length > 0 || (VERBOSE && iou < 0.7)) {
          fieldMisses.push(
            `${style.face.family} ${style.face.split}, vintage ${style.vintageSize} px, ${style.dark ? 'dark' : 'light'} stock, ${condition}: ` +
              wrong.map((k) => `${k} ${k === 'variety' ? entry.spec.variety : k === 'vintage' ? entry.spec.vintage : entry.spec[k]} read ${meta[({ vintage: 'vintage_year', variety: 'variety_type', region: 'region_name', country: 'country_name' } as const)[k]] ?? '-'}`).join('; ') +
              (VERBOSE ? ` | rect IoU ${iou.toFixed(2)} ${JSON.stringify(rect)} | tokens ${JSON.stringify(meta.text_tokens)}` : ''),
          );
        }
      }

      if (NO_SEARCH) continue;
      const searchPayload: WineSearchPayload = {
        account_id: accountId, account: 'bench', service: 'wine', query: { staged_key: await stage(photo.jpeg), label: 'q.jpg' }, preferred_side: WINE_PREFERRED_SIDE,
        options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, offset: 0, limit: 10 },
      };
      t0 = performance.now();
      const found = await run<WineSearchResult>(JobKind.WineSearch, searchPayload);
      searchTimes.push(performance.now() - t0);
      const producer = entry.filepath.split('/')[0];
      for (const item of found.items) {
        if (item.score_text === undefined) continue;
        if (item.filepath === entry.filepath) textOwn.push(item.score_text);
        else if (item.filepath.startsWith(`${producer}/`)) textTwin.push(item.score_text);
        else textOther.push(item.score_text);
      }
      const hasTwin = collection.some((e) => e !== entry && e.filepath.startsWith(`${producer}/`));
      if (hasTwin) twinQueries++;
      if (found.items[0]?.filepath === entry.filepath) {
        hits++;
        if (hasTwin) twinHits++;
      } else {
        const rank = found.items.findIndex((i) => i.filepath === entry.filepath);
        const show = (i: WineSearchResult['items'][number]) => `${i.filepath} [score ${i.score}, match ${i.match_percent} %, text ${i.score_text ?? '-'}]`;
        misses.push(
          `${entry.filepath} (${entry.spec.producer} ${entry.spec.vintage} ${entry.spec.variety}) → ${found.items[0] ? show(found.items[0]) : 'nothing'}; ` +
            `true label ${rank < 0 ? 'not in the top 10' : `at rank ${rank + 1} ${show(found.items[rank])}`}; read: ${meta.vintage_year} ${meta.variety_type}`,
        );
      }
    }
    const pct = (n: number) => ((100 * n) / QUERIES).toFixed(1);
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    const lines = [
      `labels in collection: ${collection.length}; query photos: ${QUERIES} (${twinQueries} of labels with near-twins); seed ${SEED}`,
      `field accuracy: vintage ${pct(fields.vintage)} %, variety ${pct(fields.variety)} %, region ${pct(fields.region)} %, country ${pct(fields.country)} %, color ${pct(fields.color)} %`,
      `label_rect IoU: mean ${(ious.reduce((s, v) => s + v, 0) / ious.length).toFixed(3)}, median ${percentile(ious, 50).toFixed(3)}, share ≥ 0.7: ${pct(ious.filter((v) => v >= 0.7).length)} %`,
      `search recall@1: ${pct(hits)} % (near-twin queries: ${twinQueries ? ((100 * twinHits) / twinQueries).toFixed(1) : '-'} %)`,
      `score_text in the results: own label min ${Math.min(...textOwn)}, p5 ${percentile(textOwn, 5)} (${textOwn.length}); ` +
        `near-twins ${Math.min(...textTwin)}-${Math.max(...textTwin)} (${textTwin.length}); other producers max ${Math.max(...textOther)}, p95 ${percentile(textOther, 95)} (${textOther.length})`,
      `extract_metadata per image: p50 ${ms(percentile(extractTimes, 50))}, p95 ${ms(percentile(extractTimes, 95))}; ` +
        `CPU time p50 ${ms(percentile(extractCpu, 50))}, p95 ${ms(percentile(extractCpu, 95))} (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`,
      `search: p50 ${ms(percentile(searchTimes, 50))}, p95 ${ms(percentile(searchTimes, 95))}`,
      `add per image (batches of 10): p50 ${ms(percentile(addTimes, 50))}, p95 ${ms(percentile(addTimes, 95))}`,
      `total run: ${((performance.now() - started) / 1000).toFixed(0)} s`,
    ];
    if (PRINTED) {
      const share = (k: number, n: number) => ((100 * k) / n).toFixed(0).padStart(4);
      lines.push('per category (% right: vintage, variety [synonyms accepted], region, country, color; share of label_rect IoU ≥ 0.7):');
      for (const [c, r] of Object.entries(byCategory).sort(([a], [b]) => a.localeCompare(b))) {
        lines.push(`  ${c.padEnd(26)} n ${String(r.n).padStart(3)}  vintage${share(r.vintage, r.n)}  variety${share(r.variety, r.n)}  region${share(r.region, r.n)}  country${share(r.country, r.n)}  color${share(r.color, r.n)}  rect${share(r.iou, r.n)}`);
      }
      if (fieldMisses.length) lines.push(`field misses:\n  ${fieldMisses.join('\n  ')}`);
    }
    console.log(lines.join('\n'));
    if (misses.length) console.log(`misses:\n  ${misses.join('\n  ')}`);
  } finally {
    await Promise.all([compute.close(), labelReader.close()]);
    await infra.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
