/**
 * The benchmark's photo set: raster pictures shipped by Debian packages (installed by setup.sh), deduplicated, and
 * cached as resized JPEGs (longer side at most 1600 px) under tools/bench/match/.cache/photos.
 *
 * Deduplication, so that every kept photo is a distinct picture:
 *  1. identical bytes (sha1);
 *  2. one picture shipped in many sizes or variants: files of one Plasma wallpaper package (`<name>/contents/…`, light
 *     and dark images alike) and files whose names differ only by a resolution token (`1920x1080`), `_Portrait`, or a
 *     light/dark/day/night suffix form one group;
 *  3. near-duplicates found by a 64-bit dHash of the whole picture and of its central square (a 16:9 and a 4:3
 *     version of one picture share the central square), Hamming distance <= 6, grouped transitively.
 * Each group keeps its largest file (most pixels).
 *
 *   npx tsx tools/bench/match/dataset.ts     # builds the cache and prints the counts
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp, { type Sharp } from 'sharp';

export const CACHE_DIR = path.join(__dirname, '.cache');
const PHOTO_DIR = path.join(CACHE_DIR, 'photos');
const MANIFEST = path.join(CACHE_DIR, 'photos.json');
/** Bump when the selection rules change, so a stale cache is rebuilt. */
const MANIFEST_VERSION = 3;

/** Folders the packages of setup.sh install pictures into, and the family each one's pictures belong to. */
export const SOURCES: Array<{ dir: string; family: string }> = [
  { dir: '/usr/share/wallpapers', family: 'wallpaper' }, // plasma-workspace-wallpapers
  { dir: '/usr/share/backgrounds', family: 'wallpaper' }, // gnome, mate, sway, ukui, lomiri backgrounds
  { dir: '/usr/share/desktop-base', family: 'wallpaper' }, // Debian themes
  { dir: '/usr/share/xplanet/images', family: 'astronomy' }, // xplanet-images: planet maps
  { dir: '/usr/share/stellarium/nebulae', family: 'astronomy' }, // stellarium-data: nebula and galaxy photographs
];

const RASTER = /\.(jpe?g|png|webp)$/i;
/** Previews and thumbnails, not pictures of their own. */
const SKIP = /(screenshot|thumb|preview|icon|logo)/i;
/** Smallest side worth keeping: smaller files are thumbnails or icons. */
const MIN_SIDE = 400;
export const MAX_SIDE = 1600;
const DHASH_NEAR = 6;

export interface Photo {
  /** Stable id: sha1 of the source bytes, first 12 hex digits. */
  id: string;
  source: string;
  family: string;
  /** Resized cached copy (JPEG q92), longer side <= MAX_SIDE. */
  file: string;
  width: number;
  height: number;
}

interface Candidate {
  source: string;
  family: string;
  sha1: string;
  width: number;
  height: number;
  group: string;
  hashes: bigint[];
}

async function walk(dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else if ((entry.isFile() || entry.isSymbolicLink()) && RASTER.test(entry.name) && !SKIP.test(entry.name)) out.push(full);
  }
  return out;
}

/** Group key of rule 2: one picture shipped in several sizes or light/dark variants. */
export function variantGroup(file: string): string {
  const contents = file.indexOf('/contents/');
  if (contents >= 0) return file.slice(0, contents);
  const dir = path.dirname(file);
  const stem = path
    .basename(file)
    .replace(RASTER, '')
    .toLowerCase()
    .replace(/[_-]?\d{3,5}x\d{3,5}/g, '')
    .replace(/[_-]?portrait/g, '')
    .replace(/[_-](l|d|light|dark|day|night|morning|evening)$/g, '');
  return `${dir}/${stem}`;
}

/** 64-bit difference hash of a greyscale 9x8 thumbnail. */
export async function dHash(input: Sharp): Promise<bigint> {
  const px = await input.clone().greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer();
  let h = 0n;
  for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) h = (h << 1n) | (px[y * 9 + x] < px[y * 9 + x + 1] ? 1n : 0n);
  return h;
}

export function hamming64(a: bigint, b: bigint): number {
  let v = a ^ b;
  let n = 0;
  while (v) {
    v &= v - 1n;
    n++;
  }
  return n;
}

class UnionFind {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    while (this.parent[i] !== i) i = this.parent[i] = this.parent[this.parent[i]];
    return i;
  }
  union(a: number, b: number): void {
    this.parent[this.find(a)] = this.find(b);
  }
}

async function describe(file: string, family: string): Promise<Candidate | null> {
  try {
    const data = await readFile(file);
    const meta = await sharp(data).metadata();
    if (!meta.width || !meta.height || (meta.pages ?? 1) > 1) return null;
    if (Math.min(meta.width, meta.height) < MIN_SIDE) return null;
    const img = sharp(data, { limitInputPixels: false }).rotate().flatten({ background: '#808080' }).resize(256, 256, { fit: 'inside' });
    const small = await img.png().toBuffer();
    const s = await sharp(small).metadata();
    const side = Math.min(s.width!, s.height!);
    const square = sharp(small).extract({ left: Math.floor((s.width! - side) / 2), top: Math.floor((s.height! - side) / 2), width: side, height: side });
    return {
      source: file,
      family,
      sha1: createHash('sha1').update(data).digest('hex'),
      width: meta.width,
      height: meta.height,
      group: variantGroup(file),
      hashes: [await dHash(sharp(small)), await dHash(square)],
    };
  } catch {
    return null;
  }
}

export interface DatasetInfo {
  photos: Photo[];
  scanned: number;
  dropped: { small: number; identical: number; variants: number; nearDuplicates: number };
}

/** Scans the package folders, deduplicates, and caches resized copies; reuses the cache when present. */
export async function loadDataset(log: (s: string) => void = () => {}): Promise<DatasetInfo> {
  if (existsSync(MANIFEST)) {
    const cached = JSON.parse(await readFile(MANIFEST, 'utf8')) as DatasetInfo & { version: number };
    // An empty set is never reused: it was cached before setup.sh installed the packages.
    if (cached.version === MANIFEST_VERSION && cached.photos.length > 0 && cached.photos.every((p) => existsSync(p.file))) return cached;
  }
  await mkdir(PHOTO_DIR, { recursive: true });
  const files: Array<{ file: string; family: string }> = [];
  for (const s of SOURCES) for (const file of (await walk(s.dir)).sort()) files.push({ file, family: s.family });
  log(`dataset: scanning ${files.length} files`);
  const candidates: Candidate[] = [];
  for (const f of files) {
    const c = await describe(f.file, f.family);
    if (c) candidates.push(c);
  }
  const small = files.length - candidates.length;
  // Rule 1 and 2 and 3 in one union-find; the largest file of each group is kept.
  const uf = new UnionFind(candidates.length);
  const bySha = new Map<string, number>();
  const byGroup = new Map<string, number>();
  let identical = 0;
  let variants = 0;
  candidates.forEach((c, i) => {
    const same = bySha.get(c.sha1);
    if (same !== undefined) {
      uf.union(i, same);
      identical++;
      return;
    }
    bySha.set(c.sha1, i);
    const group = byGroup.get(c.group);
    if (group !== undefined) {
      uf.union(i, group);
      variants++;
    } else byGroup.set(c.group, i);
  });
  let nearDuplicates = 0;
  for (let i = 0; i < candidates.length; i++) {
    for (let j = 0; j < i; j++) {
      if (uf.find(i) === uf.find(j)) continue;
      const [a0, a1] = candidates[i].hashes;
      const [b0, b1] = candidates[j].hashes;
      if (hamming64(a0, b0) <= DHASH_NEAR || hamming64(a1, b1) <= DHASH_NEAR) {
        uf.union(i, j);
        nearDuplicates++;
      }
    }
  }
  const best = new Map<number, Candidate>();
  for (let i = 0; i < candidates.length; i++) {
    const root = uf.find(i);
    const c = candidates[i];
    const kept = best.get(root);
    if (!kept || c.width * c.height > kept.width * kept.height) best.set(root, c);
  }
  const photos: Photo[] = [];
  for (const c of [...best.values()].sort((a, b) => a.source.localeCompare(b.source))) {
    const id = c.sha1.slice(0, 12);
    const file = path.join(PHOTO_DIR, `${id}.jpg`);
    const info = await sharp(await readFile(c.source), { limitInputPixels: false })
      .rotate()
      .flatten({ background: '#808080' })
      .resize(MAX_SIDE, MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
      .jpeg({ quality: 92 })
      .toFile(file);
    photos.push({ id, source: c.source, family: c.family, file, width: info.width, height: info.height });
  }
  const result: DatasetInfo = { photos, scanned: files.length, dropped: { small, identical, variants, nearDuplicates } };
  await writeFile(MANIFEST, JSON.stringify({ version: MANIFEST_VERSION, ...result }, null, 1));
  log(`dataset: ${photos.length} distinct photos cached`);
  return result;
}

if (require.main === module) {
  const started = Date.now();
  loadDataset(console.log)
    .then(async (d) => {
      const byFamily = new Map<string, number>();
      for (const p of d.photos) byFamily.set(p.family, (byFamily.get(p.family) ?? 0) + 1);
      console.log(JSON.stringify({ photos: d.photos.length, scanned: d.scanned, dropped: d.dropped, byFamily: Object.fromEntries(byFamily) }));
      console.log(`cache ${(await stat(PHOTO_DIR)).isDirectory() ? PHOTO_DIR : '?'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    })
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
