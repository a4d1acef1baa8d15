/**
 * The "hard copies" families of the matching benchmark (issue 15): images a pattern or design company would index,
 * generated as SVG and rendered by sharp, one different image per generator and seed.
 *
 *  - patterns: tiles, fabric weaves, rows of digits, wood grain, stripes (held out: herringbone parquet). Every motif
 *    repeats, so nearly every descriptor has a twin and Lowe's ratio test throws most true matches away.
 *  - smooth: multi-stop gradients, soft blurred wallpapers, bokeh backgrounds (held out: aurora bands). Few corners.
 *  - logos: a mark and a name on a plain ground, flat vector landscapes (held out: an emblem badge). Few, clean
 *    corners, large flat areas.
 *
 * Split: the tuning split uses the tuning generators with seeds from TUNE_SEED; the held-out split uses other seeds
 * (HOLDOUT_SEED) and, for a third of its images, a generator never used while tuning. Tuning runs query only the
 * tuning split (`--family-split tune`); the report gives both.
 */
import { seededRandom } from '@loupe/fingerprint';
// The SVG helpers, by short names: the generators below call them on nearly every line.
import { hslOf as hsl, intBetween as int, oneDecimal as f1, svgOf as svg, woodGrainSvg } from '@loupe/fingerprint/src/testing/synthetic-images';
import sharp from 'sharp';

export type FamilyName = 'patterns' | 'smooth' | 'logos';
export const FAMILIES: FamilyName[] = ['patterns', 'smooth', 'logos'];
export type Split = 'tune' | 'holdout';

type Generator = (rnd: () => number, width: number, height: number) => string;

const TUNE_SEED = 1;
const HOLDOUT_SEED = 50_001;
/** Seeds of the images kept out of the collection (non-collection queries for the false-positive rate). */
const OUTSIDE_SEED = 90_001;


// ---------- patterns ----------
/** Ceramic tiles: a grid of square tiles with grout, one of a few glazes per tile and a motif drawn in each. */
const tiles: Generator = (rnd, width, height) => {
  const size = int(rnd, 36, 90);
  const grout = Math.max(2, Math.round(size * (0.04 + rnd() * 0.06)));
  const hue = rnd() * 360;
  const glazes = Array.from({ length: int(rnd, 1, 3) }, (_, i) => hsl(hue + i * (20 + rnd() * 60), 30 + rnd() * 50, 35 + rnd() * 40));
  const motif = int(rnd, 0, 3);
  const ink = hsl(hue + 180, 40 + rnd() * 40, 20 + rnd() * 30);
  const parts = [`<rect width="${width}" height="${height}" fill="${hsl(hue, 10, 80 + rnd() * 15)}"/>`];
  for (let y = 0; y < height; y += size) {
    for (let x = 0; x < width; x += size) {
      const s = size - grout;
      parts.push(`<rect x="${x}" y="${y}" width="${s}" height="${s}" fill="${glazes[int(rnd, 0, glazes.length - 1)]}"/>`);
      const cx = x + s / 2, cy = y + s / 2;
      if (motif === 0) parts.push(`<circle cx="${cx}" cy="${cy}" r="${f1(s * 0.3)}" fill="none" stroke="${ink}" stroke-width="${f1(s * 0.06)}"/>`);
      else if (motif === 1) parts.push(`<polygon points="${cx},${y + s * 0.15} ${x + s * 0.85},${cy} ${cx},${y + s * 0.85} ${x + s * 0.15},${cy}" fill="${ink}"/>`);
      else if (motif === 2) parts.push(`<path d="M${x} ${y} L${x + s} ${y + s} M${x + s} ${y} L${x} ${y + s}" stroke="${ink}" stroke-width="${f1(s * 0.05)}"/>`);
    }
  }
  return svg(width, height, parts.join(''));
};

/** Plain or twill weave: warp and weft threads alternating over and under, each thread a slightly different shade. */
const weave: Generator = (rnd, width, height) => {
  const thread = int(rnd, 8, 22);
  const twill = int(rnd, 1, 3); // 1: plain weave; 2-3: twill steps
  const hue = rnd() * 360;
  const warp = (i: number) => hsl(hue + (i % 7) * 2, 35 + rnd() * 30, 30 + rnd() * 18);
  const weft = (j: number) => hsl(hue + 120 + (j % 5) * 3, 30 + rnd() * 30, 55 + rnd() * 20);
  const parts = [`<rect width="${width}" height="${height}" fill="${hsl(hue, 20, 20)}"/>`];
  const cols = Math.ceil(width / thread), rows = Math.ceil(height / thread);
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) {
      const over = Math.floor((i + j * twill) / twill) % 2 === 0;
      const x = i * thread, y = j * thread;
      const inset = thread * 0.12;
      if (over) parts.push(`<rect x="${x + inset}" y="${y}" width="${f1(thread - 2 * inset)}" height="${thread}" fill="${warp(i)}"/>`);
      else parts.push(`<rect x="${x}" y="${y + inset}" width="${thread}" height="${f1(thread - 2 * inset)}" fill="${weft(j)}"/>`);
    }
  }
  return svg(width, height, parts.join(''));
};

/** Rows of random digits in one font and size: every glyph appears many times. */
const digits: Generator = (rnd, width, height) => {
  const size = int(rnd, 22, 48);
  const mono = rnd() < 0.5;
  const hue = rnd() * 360;
  const dark = rnd() < 0.5;
  const parts = [`<rect width="${width}" height="${height}" fill="${hsl(hue, 20, dark ? 12 : 92)}"/>`];
  const perRow = Math.ceil(width / (size * 0.62)) + 1;
  for (let y = size; y < height + size; y += size * 1.25) {
    let line = '';
    for (let k = 0; k < perRow; k++) line += String(int(rnd, 0, 9));
    parts.push(`<text x="0" y="${f1(y)}" font-family="${mono ? 'monospace' : 'sans-serif'}" font-size="${size}" fill="${hsl(hue + 30, 60, dark ? 70 : 25)}">${line}</text>`);
  }
  return svg(width, height, parts.join(''));
};

/** Stripes: a repeating sequence of bands of a few widths and colors, straight or at an angle. */
const stripes: Generator = (rnd, width, height) => {
  const hue = rnd() * 360;
  const sequence = Array.from({ length: int(rnd, 2, 5) }, (_, i) => ({ w: int(rnd, 4, 40), c: hsl(hue + i * (30 + rnd() * 90), 40 + rnd() * 50, 25 + rnd() * 60) }));
  const angle = [0, 90, 45, -45, 30][int(rnd, 0, 4)];
  const diag = Math.hypot(width, height);
  const parts: string[] = [];
  let k = 0;
  for (let x = -diag; x < diag; ) {
    const band = sequence[k++ % sequence.length];
    parts.push(`<rect x="${x}" y="${-diag}" width="${band.w}" height="${2 * diag}" fill="${band.c}"/>`);
    x += band.w;
  }
  // Woven or printed grain: pure bands have no corners at all, real striped fabric and paper do.
  const grain = `<filter id="n"><feTurbulence type="fractalNoise" baseFrequency="${(0.05 + rnd() * 0.1).toFixed(3)}" numOctaves="2" seed="${int(rnd, 1, 9999)}"/><feColorMatrix type="saturate" values="0"/></filter>`;
  return svg(width, height, `<defs>${grain}</defs><g transform="translate(${width / 2} ${height / 2}) rotate(${angle})">${parts.join('')}</g><rect width="${width}" height="${height}" filter="url(#n)" opacity="0.18"/>`);
};

/** Held out: herringbone parquet, planks in alternating diagonal directions. */
const herringbone: Generator = (rnd, width, height) => {
  const w = int(rnd, 14, 30), l = w * int(rnd, 3, 5);
  const hue = 15 + rnd() * 30;
  const parts = [`<rect width="${width}" height="${height}" fill="${hsl(hue, 30, 20)}"/>`];
  for (let y = -l; y < height + l; y += w * 2) {
    for (let x = -l; x < width + l; x += l) {
      parts.push(`<rect x="${x}" y="${y}" width="${l - 2}" height="${w - 2}" fill="${hsl(hue + rnd() * 8, 45, 40 + rnd() * 20)}" transform="rotate(45 ${x} ${y})"/>`);
      parts.push(`<rect x="${x + l / 2}" y="${y + w}" width="${l - 2}" height="${w - 2}" fill="${hsl(hue + rnd() * 8, 45, 40 + rnd() * 20)}" transform="rotate(-45 ${x + l / 2} ${y + w})"/>`);
    }
  }
  return svg(width, height, parts.join(''));
};

// ---------- smooth ----------
/** Multi-stop linear or radial gradient. */
const gradient: Generator = (rnd, width, height) => {
  const hue = rnd() * 360;
  const n = int(rnd, 2, 5);
  const stops = Array.from({ length: n }, (_, i) => `<stop offset="${(i / (n - 1)).toFixed(2)}" stop-color="${hsl(hue + rnd() * 160, 40 + rnd() * 50, 20 + rnd() * 60)}"/>`).join('');
  const def = rnd() < 0.5
    ? `<linearGradient id="g" x1="${rnd().toFixed(2)}" y1="0" x2="${rnd().toFixed(2)}" y2="1">${stops}</linearGradient>`
    : `<radialGradient id="g" cx="${rnd().toFixed(2)}" cy="${rnd().toFixed(2)}" r="${(0.5 + rnd()).toFixed(2)}">${stops}</radialGradient>`;
  return svg(width, height, `<defs>${def}</defs><rect width="${width}" height="${height}" fill="url(#g)"/>`);
};

/** Soft wallpaper: large blurred color blobs and a soft wave over a gradient. */
const softWallpaper: Generator = (rnd, width, height) => {
  const hue = rnd() * 360;
  const blobs = Array.from({ length: int(rnd, 4, 9) }, () => `<ellipse cx="${f1(rnd() * width)}" cy="${f1(rnd() * height)}" rx="${f1(width * (0.08 + rnd() * 0.25))}" ry="${f1(height * (0.08 + rnd() * 0.25))}" fill="${hsl(hue + rnd() * 120, 50 + rnd() * 40, 30 + rnd() * 50)}" opacity="${(0.5 + rnd() * 0.5).toFixed(2)}"/>`).join('');
  const y = height * (0.3 + rnd() * 0.4);
  const wave = `<path d="M0 ${f1(y)} C ${f1(width * 0.3)} ${f1(y - height * 0.3 * rnd())}, ${f1(width * 0.6)} ${f1(y + height * 0.3 * rnd())}, ${width} ${f1(y)} L ${width} ${height} L 0 ${height} Z" fill="${hsl(hue + 200, 50, 50)}" opacity="0.6"/>`;
  return svg(width, height, `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${hsl(hue, 50, 25)}"/><stop offset="1" stop-color="${hsl(hue + 60, 50, 60)}"/></linearGradient>
    <filter id="b" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="${f1(width * (0.02 + rnd() * 0.03))}"/></filter></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/><g filter="url(#b)">${blobs}${wave}</g>`);
};

/** Bokeh: out-of-focus light discs of a few sizes over a dark gradient, slightly blurred. */
const bokeh: Generator = (rnd, width, height) => {
  const hue = rnd() * 360;
  const discs = Array.from({ length: int(rnd, 25, 70) }, () => {
    const r = width * (0.01 + rnd() * 0.06);
    return `<circle cx="${f1(rnd() * width)}" cy="${f1(rnd() * height)}" r="${f1(r)}" fill="${hsl(hue + rnd() * 80, 70, 55 + rnd() * 35)}" opacity="${(0.15 + rnd() * 0.5).toFixed(2)}"/>`;
  }).join('');
  return svg(width, height, `<defs><radialGradient id="g" cx="${rnd().toFixed(2)}" cy="${rnd().toFixed(2)}" r="1"><stop offset="0" stop-color="${hsl(hue, 40, 22)}"/><stop offset="1" stop-color="${hsl(hue + 40, 40, 5)}"/></radialGradient>
    <filter id="b"><feGaussianBlur stdDeviation="${f1(1 + rnd() * 3)}"/></filter></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/><g filter="url(#b)">${discs}</g>`);
};

/** Held out: aurora, blurred wavy bands of light across a dark sky. */
const aurora: Generator = (rnd, width, height) => {
  const hue = 90 + rnd() * 200;
  const bands = Array.from({ length: int(rnd, 2, 4) }, () => {
    const y = height * (0.2 + rnd() * 0.5);
    const a = height * (0.05 + rnd() * 0.15);
    return `<path d="M0 ${f1(y)} Q ${f1(width * 0.25)} ${f1(y - a)} ${f1(width * 0.5)} ${f1(y)} T ${width} ${f1(y)}" fill="none" stroke="${hsl(hue + rnd() * 60, 70, 55)}" stroke-width="${f1(height * (0.04 + rnd() * 0.1))}" opacity="0.7"/>`;
  }).join('');
  return svg(width, height, `<defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${hsl(230, 50, 6)}"/><stop offset="1" stop-color="${hsl(220, 40, 18)}"/></linearGradient>
    <filter id="b"><feGaussianBlur stdDeviation="${f1(height * 0.02)}"/></filter></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/><g filter="url(#b)">${bands}</g>`);
};

// ---------- logos ----------
/**
 * A made-up brand name per image: syllables drawn from the seed, so two logos never share their word (a shared word in
 * one font is a shared part, which a partial-match engine rightly finds).
 */
const SYLLABLES = ['ka', 'lo', 'mi', 've', 'tor', 'an', 'qui', 'ze', 'ru', 'pha', 'dal', 'nor', 'syl', 'ex', 'bri', 'go'];
const brandName = (rnd: () => number, syllables = int(rnd, 2, 3)) => {
  const word = Array.from({ length: syllables }, () => SYLLABLES[int(rnd, 0, SYLLABLES.length - 1)]).join('');
  return word[0].toUpperCase() + word.slice(1);
};

/** A logo: a geometric mark (rings, a star, a bar chart or a monogram) and a name, on a plain ground. */
const logo: Generator = (rnd, width, height) => {
  const hue = rnd() * 360;
  const bg = rnd() < 0.6 ? hsl(hue, 15, 96) : hsl(hue, 50, 18);
  const ink = hsl(hue + 150, 65, rnd() < 0.5 ? 40 : 60);
  const accent = hsl(hue + 40, 80, 55);
  const s = Math.min(width, height) * (0.35 + rnd() * 0.15);
  const cx = width * (0.2 + rnd() * 0.1), cy = height * (0.35 + rnd() * 0.3);
  const kind = int(rnd, 0, 3);
  let mark: string;
  if (kind === 0) mark = `<circle cx="${cx}" cy="${cy}" r="${s / 2}" fill="none" stroke="${ink}" stroke-width="${s * 0.08}"/><circle cx="${cx}" cy="${cy}" r="${s / 4}" fill="${accent}"/>`;
  else if (kind === 1) {
    const pts = Array.from({ length: 10 }, (_, i) => {
      const r = i % 2 ? s * 0.22 : s / 2;
      const a = (i / 10) * 6.283 - 1.571;
      return `${f1(cx + r * Math.cos(a))},${f1(cy + r * Math.sin(a))}`;
    }).join(' ');
    mark = `<polygon points="${pts}" fill="${accent}" stroke="${ink}" stroke-width="${s * 0.03}"/>`;
  } else if (kind === 2) {
    mark = Array.from({ length: 4 }, (_, i) => `<rect x="${f1(cx - s / 2 + i * s * 0.26)}" y="${f1(cy + s / 2 - s * (0.3 + 0.2 * i))}" width="${f1(s * 0.2)}" height="${f1(s * (0.3 + 0.2 * i))}" fill="${i === 3 ? accent : ink}"/>`).join('');
  } else {
    mark = `<rect x="${cx - s / 2}" y="${cy - s / 2}" width="${s}" height="${s}" rx="${s * 0.2}" fill="${ink}"/><text x="${cx}" y="${cy + s * 0.2}" text-anchor="middle" font-family="serif" font-weight="bold" font-size="${s * 0.6}" fill="${bg}">${String.fromCharCode(65 + int(rnd, 0, 25))}</text>`;
  }
  const name = `${brandName(rnd)}${rnd() < 0.5 ? ` ${brandName(rnd, 2).toUpperCase()}` : ''}`;
  const text = `<text x="${f1(cx + s * 0.7)}" y="${f1(cy + s * 0.15)}" font-family="sans-serif" font-weight="bold" font-size="${f1(s * 0.32)}" fill="${ink}">${name}</text>`;
  const tagline = rnd() < 0.6 ? `<text x="${f1(cx + s * 0.72)}" y="${f1(cy + s * 0.42)}" font-family="sans-serif" font-size="${f1(s * 0.12)}" fill="${accent}">since ${int(rnd, 1950, 2024)}</text>` : '';
  return svg(width, height, `<rect width="${width}" height="${height}" fill="${bg}"/>${mark}${text}${tagline}`);
};

/** Flat vector art: a landscape of flat layered hills, a sun, a few flat trees or birds. */
const flatArt: Generator = (rnd, width, height) => {
  const hue = rnd() * 360;
  const parts = [`<rect width="${width}" height="${height}" fill="${hsl(hue, 50, 75 + rnd() * 15)}"/>`];
  parts.push(`<circle cx="${f1(width * (0.15 + rnd() * 0.7))}" cy="${f1(height * (0.15 + rnd() * 0.25))}" r="${f1(height * (0.06 + rnd() * 0.08))}" fill="${hsl(hue + 180, 80, 65)}"/>`);
  const layers = int(rnd, 2, 4);
  for (let l = 0; l < layers; l++) {
    const base = height * (0.45 + (l / layers) * 0.4);
    const pts = [`0,${height}`];
    for (let x = 0; x <= width; x += width / int(rnd, 3, 7)) pts.push(`${f1(x)},${f1(base - rnd() * height * 0.2)}`);
    pts.push(`${width},${height}`);
    parts.push(`<polygon points="${pts.join(' ')}" fill="${hsl(hue + 100 + l * 10, 35, 55 - l * 12)}"/>`);
  }
  for (let t = 0; t < int(rnd, 2, 7); t++) {
    const x = rnd() * width, y = height * (0.7 + rnd() * 0.2), h = height * (0.06 + rnd() * 0.1);
    parts.push(`<polygon points="${f1(x)},${f1(y - h)} ${f1(x + h * 0.35)},${f1(y)} ${f1(x - h * 0.35)},${f1(y)}" fill="${hsl(hue + 120, 40, 22)}"/>`);
  }
  return svg(width, height, parts.join(''));
};

/** Held out: an emblem badge, concentric rings, a ribbon and a centered word. */
const emblem: Generator = (rnd, width, height) => {
  const hue = rnd() * 360;
  const cx = width / 2 + (rnd() - 0.5) * width * 0.2, cy = height / 2;
  const r = Math.min(width, height) * (0.3 + rnd() * 0.1);
  const ink = hsl(hue, 60, 30);
  const word = brandName(rnd).toUpperCase();
  return svg(width, height, `<rect width="${width}" height="${height}" fill="${hsl(hue + 180, 20, 92)}"/>
    <circle cx="${cx}" cy="${cy}" r="${r}" fill="${ink}"/><circle cx="${cx}" cy="${cy}" r="${r * 0.85}" fill="none" stroke="${hsl(hue + 40, 80, 60)}" stroke-width="${r * 0.04}"/>
    <rect x="${cx - r * 1.2}" y="${cy - r * 0.18}" width="${r * 2.4}" height="${r * 0.36}" fill="${hsl(hue + 40, 80, 55)}"/>
    <text x="${cx}" y="${cy + r * 0.12}" text-anchor="middle" font-family="sans-serif" font-weight="bold" font-size="${r * 0.3}" fill="${ink}">${word}</text>
    <text x="${cx}" y="${cy - r * 0.4}" text-anchor="middle" font-family="serif" font-size="${r * 0.16}" fill="#ffffff">EST. ${int(rnd, 1900, 2020)}</text>`);
};

export const GENERATORS: Record<FamilyName, { tune: Array<[string, Generator]>; heldOut: Array<[string, Generator]> }> = {
  patterns: { tune: [['tiles', tiles], ['weave', weave], ['digits', digits], ['wood', woodGrainSvg], ['stripes', stripes]], heldOut: [['herringbone', herringbone]] },
  smooth: { tune: [['gradient', gradient], ['soft', softWallpaper], ['bokeh', bokeh]], heldOut: [['aurora', aurora]] },
  logos: { tune: [['logo', logo], ['flat', flatArt]], heldOut: [['emblem', emblem]] },
};

export interface FamilyImage {
  family: FamilyName;
  split: Split;
  generator: string;
  seed: number;
  /** Collection path (also the id). */
  id: string;
  data: Buffer;
  width: number;
  height: number;
}

/**
 * `count` images of a family and split (`outside`: images never added to the collection, for the false-positive
 * rate). Generators take turns; in the held-out split every third image comes from the held-out generator.
 */
export async function familyImages(family: FamilyName, split: Split, count: number, outside = false): Promise<FamilyImage[]> {
  const g = GENERATORS[family];
  const base = (outside ? OUTSIDE_SEED : split === 'tune' ? TUNE_SEED : HOLDOUT_SEED) + FAMILIES.indexOf(family) * 1000;
  const out: FamilyImage[] = [];
  for (let i = 0; i < count; i++) {
    const seed = base + i;
    const useHeldOut = split === 'holdout' && i % 3 === 2;
    const [name, make] = useHeldOut ? g.heldOut[(i / 3) % g.heldOut.length | 0] : g.tune[i % g.tune.length];
    const rnd = seededRandom(seed);
    const width = 1000 + Math.floor(rnd() * 500);
    const height = Math.round(width * (0.56 + rnd() * 0.2));
    const data = await sharp(Buffer.from(make(rnd, width, height))).jpeg({ quality: 92 }).toBuffer();
    out.push({ family, split, generator: name, seed, id: `${family}/${split}${outside ? '-outside' : ''}/${name}-${seed}.jpg`, data, width, height });
  }
  return out;
}

if (require.main === module) {
  // Writes a contact sheet of each family's first images to .cache/families for a look.
  void (async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    const path = await import('node:path');
    const dir = path.join(__dirname, '.cache', 'families');
    await mkdir(dir, { recursive: true });
    for (const family of FAMILIES) for (const split of ['tune', 'holdout'] as Split[]) {
      for (const img of await familyImages(family, split, Number(process.argv[2] ?? 6))) await writeFile(path.join(dir, img.id.replace(/\//g, '_')), img.data);
    }
  })();
}
