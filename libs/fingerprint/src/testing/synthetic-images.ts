import sharp from 'sharp';
import { seededRandom } from '../random';
import { rgbToGray } from '../rgb';
import { toRgb } from './edits';
import type { RgbImage } from '../types';

/* Rich, label-like test images: gradients, overlapping shapes, words and sensor-like noise, one per seed. */

const WORDS = ['CHATEAU', 'Reserve', 'Grand Cru', 'Loupe', 'Vintage', 'Merlot', 'Estate', 'Bordeaux', 'Rioja', 'Nebbiolo', '1987', 'Cuvée', 'Valley', 'Organic'];

/** Standard deviation of the added grey noise, like a phone sensor in indoor light. */
const NOISE_SIGMA = 6;
/** Pre-drawn Gaussian samples, picked at random per pixel: 4x faster than Box–Muller per pixel. */
const NOISE_TABLE = 65536;

export async function syntheticImage(seed: number, width = 800, height = 600): Promise<RgbImage> {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
  const color = () => `rgb(${Math.floor(rnd() * 256)},${Math.floor(rnd() * 256)},${Math.floor(rnd() * 256)})`;
  const shapes: string[] = [];
  for (let i = 0; i < 45; i++) {
    const x = rnd() * width;
    const y = rnd() * height;
    const s = 10 + rnd() * 120;
    const op = (0.4 + rnd() * 0.6).toFixed(2);
    const kind = Math.floor(rnd() * 5);
    if (kind === 0) shapes.push(`<rect x="${x}" y="${y}" width="${s}" height="${s * (0.3 + rnd())}" fill="${color()}" opacity="${op}" transform="rotate(${rnd() * 90} ${x} ${y})"/>`);
    else if (kind === 1) shapes.push(`<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${color()}" opacity="${op}" stroke="${color()}" stroke-width="${1 + rnd() * 6}"/>`);
    else if (kind === 2) shapes.push(`<ellipse cx="${x}" cy="${y}" rx="${s / 2}" ry="${s / 5}" fill="${color()}" opacity="${op}" transform="rotate(${rnd() * 180} ${x} ${y})"/>`);
    else if (kind === 3) {
      const pts = Array.from({ length: 3 + Math.floor(rnd() * 4) }, () => `${x + (rnd() - 0.5) * s * 2},${y + (rnd() - 0.5) * s * 2}`).join(' ');
      shapes.push(`<polygon points="${pts}" fill="${color()}" opacity="${op}"/>`);
    } else shapes.push(`<line x1="${x}" y1="${y}" x2="${x + (rnd() - 0.5) * 300}" y2="${y + (rnd() - 0.5) * 300}" stroke="${color()}" stroke-width="${1 + rnd() * 8}"/>`);
  }
  for (let i = 0; i < 7; i++) {
    const x = rnd() * width * 0.8;
    const y = 30 + rnd() * (height - 30);
    shapes.push(`<text x="${x}" y="${y}" font-family="sans-serif" font-weight="${rnd() > 0.5 ? 'bold' : 'normal'}" font-size="${14 + rnd() * 50}" fill="${color()}" transform="rotate(${(rnd() - 0.5) * 40} ${x} ${y})">${pick(WORDS)}</text>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="${rnd().toFixed(2)}" y2="1"><stop offset="0" stop-color="${color()}"/><stop offset="1" stop-color="${color()}"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>${shapes.join('')}</svg>`;
  const base = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer();
  const table = Float32Array.from({ length: NOISE_TABLE }, () => gaussian(rnd) * NOISE_SIGMA);
  const noisy = new Uint8Array(base.length);
  for (let i = 0; i < base.length; i++) noisy[i] = clampByte(base[i] + table[Math.floor(rnd() * NOISE_TABLE)]);
  return { data: noisy, width, height };
}

function gaussian(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
}

function clampByte(v: number): number {
  return v < 0 ? 0 : v > 255 ? 255 : Math.round(v);
}

/** Grey version of a generated image. */
export const toGray = rgbToGray;

/** A smooth wallpaper: soft gradient ribbons with hardly a corner, the kind of image ORB finds few stable points on. */
export async function smoothWallpaper(seed: number): Promise<RgbImage> {
  const rnd = seededRandom(seed);
  const hue = () => Math.floor(rnd() * 360);
  const ribbons = Array.from({ length: 10 }, (_, i) => {
    const y = 60 + rnd() * 480;
    const width = i % 2 ? 3 : 30 + rnd() * 50;
    return `<path d="M -50 ${y} C 250 ${y - 250 + rnd() * 500}, 550 ${y - 250 + rnd() * 500}, 850 ${y - 100 + rnd() * 200}" stroke="hsl(${hue()},70%,55%)" stroke-width="${width}" fill="none" stroke-linecap="round" opacity="0.8" filter="url(#soft${i % 2})"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">
    <defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue()},60%,70%)"/><stop offset="1" stop-color="hsl(${hue()},60%,35%)"/></linearGradient>
    <filter id="soft0"><feGaussianBlur stdDeviation="5"/></filter><filter id="soft1"><feGaussianBlur stdDeviation="1"/></filter></defs>
    <rect width="800" height="600" fill="url(#bg)"/>${ribbons.join('')}</svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/** SVG drawing helpers (also the matching benchmark's families'): a whole number from lo to hi, both included. */
export const intBetween = (rnd: () => number, lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
/** An hsl() colour, the hue taken round the circle. */
export const hslOf = (h: number, s: number, l: number) => `hsl(${Math.round(((h % 360) + 360) % 360)},${Math.round(s)}%,${Math.round(l)}%)`;
/** An SVG document of `width` × `height` around `body`. */
export const svgOf = (width: number, height: number, body: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`;
/** A coordinate written with one decimal. */
export const oneDecimal = (v: number) => v.toFixed(1);

/**
 * Wood grain as SVG: many wavy growth lines following one slow curve, a few knots, planks in some images (the matching
 * benchmark's patterns family draws its wood with it). Fine lines of weak corners: turned and recompressed, a crop of
 * it keeps a thousand points that hardly repeat.
 */
export function woodGrainSvg(rnd: () => number, width: number, height: number): string {
  const hue = 20 + rnd() * 20;
  const spacing = 3 + rnd() * 6;
  const waves = Array.from({ length: 3 }, () => ({ a: 4 + rnd() * 25, f: (0.5 + rnd() * 3) / width, p: rnd() * 6.3 }));
  const knots = Array.from({ length: intBetween(rnd, 0, 3) }, () => ({ x: rnd() * width, y: rnd() * height, r: 15 + rnd() * 40 }));
  const parts = [`<rect width="${width}" height="${height}" fill="${hslOf(hue, 45, 55)}"/>`];
  for (let y0 = -40; y0 < height + 40; y0 += spacing * (0.6 + rnd() * 0.8)) {
    const pts: string[] = [];
    for (let x = 0; x <= width; x += 12) {
      let y = y0;
      for (const w of waves) y += w.a * Math.sin(w.f * x * 6.28 + w.p + y0 * 0.002);
      for (const k of knots) {
        const d = Math.hypot(x - k.x, y - k.y);
        if (d < k.r * 3) y += (y >= k.y ? 1 : -1) * k.r * Math.exp(-d / k.r);
      }
      pts.push(`${x},${oneDecimal(y)}`);
    }
    parts.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${hslOf(hue - 5 + rnd() * 10, 50, 25 + rnd() * 25)}" stroke-width="${oneDecimal(0.6 + rnd() * 2.2)}" opacity="${(0.5 + rnd() * 0.5).toFixed(2)}"/>`);
  }
  for (const k of knots) parts.push(`<ellipse cx="${oneDecimal(k.x)}" cy="${oneDecimal(k.y)}" rx="${oneDecimal(k.r * 0.5)}" ry="${oneDecimal(k.r * 0.3)}" fill="${hslOf(hue, 50, 20)}" opacity="0.8"/>`);
  if (rnd() < 0.5) for (let y = intBetween(rnd, 60, 180); y < height; y += intBetween(rnd, 90, 200)) parts.push(`<rect x="0" y="${y}" width="${width}" height="2" fill="${hslOf(hue, 40, 15)}"/>`);
  return svgOf(width, height, parts.join(''));
}

/**
 * A soft wallpaper of a few large colour blobs blurred into a diagonal gradient: its corners (ORB finds many, all soft)
 * do not survive a rotation well enough for feature verification or a weak fit.
 */
export async function softBlobs(seed: number): Promise<RgbImage> {
  const rnd = seededRandom(seed);
  const [width, height] = [800, 560];
  const blobs = Array.from({ length: 6 }, () => {
    const [cx, cy] = [rnd() * width, rnd() * height];
    const [rx, ry] = [width * (0.08 + rnd() * 0.25), height * (0.08 + rnd() * 0.25)];
    return `<ellipse cx="${cx}" cy="${cy}" rx="${rx}" ry="${ry}" fill="hsl(${Math.floor(rnd() * 360)},70%,${30 + rnd() * 50}%)" opacity="0.8"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(200,50%,25%)"/><stop offset="1" stop-color="hsl(260,50%,60%)"/></linearGradient>
    <filter id="b"><feGaussianBlur stdDeviation="${width * 0.03}"/></filter></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/><g filter="url(#b)">${blobs.join('')}</g></svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/**
 * Square tiles of one glaze, each with the same ring drawn in it, `tile` px apart: every keypoint has twins all over the
 * image, and a crop aligns with it at every lattice shift and turned by quarter turns.
 */
export async function ringTiles(glaze: string, ink: string, tile = 64, width = 1200, height = 680): Promise<RgbImage> {
  const cells: string[] = [];
  for (let y = 0; y < height; y += tile) {
    for (let x = 0; x < width; x += tile) {
      cells.push(`<rect x="${x + 2}" y="${y + 2}" width="${tile - 4}" height="${tile - 4}" fill="${glaze}"/>`);
      cells.push(`<circle cx="${x + tile / 2}" cy="${y + tile / 2}" r="${tile * 0.28}" fill="none" stroke="${ink}" stroke-width="${tile * 0.06}"/>`);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#d8cfc0"/>${cells.join('')}</svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/**
 * Square tiles of `tile` px, each of one of three glazes at random with a dark diamond in it, on light grout: a lattice
 * whose glazes make every crop's colours its own, and whose fine grout lines a placement a pixel or two off misses.
 */
export async function glazedTiles(seed: number, tile = 56, width = 1120, height = 670): Promise<RgbImage> {
  const rnd = seededRandom(seed);
  const glazes = ['hsl(140,40%,60%)', 'hsl(205,70%,62%)', 'hsl(215,40%,40%)'];
  const cells: string[] = [];
  const s = tile - 4;
  for (let y = 0; y < height; y += tile) {
    for (let x = 0; x < width; x += tile) {
      cells.push(`<rect x="${x}" y="${y}" width="${s}" height="${s}" fill="${glazes[Math.floor(rnd() * glazes.length)]}"/>`);
      const [cx, cy] = [x + s / 2, y + s / 2];
      cells.push(`<polygon points="${cx},${y + s * 0.15} ${x + s * 0.85},${cy} ${cx},${y + s * 0.85} ${x + s * 0.15},${cy}" fill="hsl(320,50%,20%)"/>`);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="hsl(30,10%,90%)"/>${cells.join('')}</svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/**
 * Square tiles of `tile` px in one `glaze`, each crossed corner to corner by thin dark lines, on light grout: a lattice
 * whose colours at a colour comparison's size are mostly its lines and grout, so a placement a pixel off decorrelates them.
 */
export async function crossedTiles(tile: number, glaze = 'hsl(40,45%,60%)', width = 1328, height = 767): Promise<RgbImage> {
  const cells: string[] = [];
  const s = tile - Math.max(2, Math.round(tile * 0.07));
  for (let y = 0; y < height; y += tile) {
    for (let x = 0; x < width; x += tile) {
      cells.push(`<rect x="${x}" y="${y}" width="${s}" height="${s}" fill="${glaze}"/>`);
      cells.push(`<path d="M${x} ${y} L${x + s} ${y + s} M${x + s} ${y} L${x} ${y + s}" stroke="hsl(220,50%,35%)" stroke-width="${(s * 0.05).toFixed(1)}"/>`);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="hsl(40,10%,85%)"/>${cells.join('')}</svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/**
 * A twill of `thread` px threads, warp and weft of two hues crossing over each other `twill` threads at a time (1: a
 * plain weave): a fine pattern whose every square has twins, which shrunk for a coarse search is one colour.
 */
export async function twillWeave(thread: number, twill: number, width = 1200, height = 680): Promise<RgbImage> {
  const cells: string[] = [];
  const inset = Math.round(thread * 0.12);
  for (let y = 0, j = 0; y < height; y += thread, j++) {
    for (let x = 0, i = 0; x < width; x += thread, i++) {
      if (Math.floor((i + j * twill) / twill) % 2 === 0) cells.push(`<rect x="${x + inset}" y="${y}" width="${thread - 2 * inset}" height="${thread}" fill="hsl(${200 + (i % 7) * 2},45%,38%)"/>`);
      else cells.push(`<rect x="${x}" y="${y + inset}" width="${thread}" height="${thread - 2 * inset}" fill="hsl(${320 + (j % 5) * 3},40%,65%)"/>`);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="hsl(200,20%,20%)"/>${cells.join('')}</svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/** Rows of flat sky above `flatLandscape`'s sun: a fifth of its height, which a border cut takes off (at most a quarter). */
export const FLAT_LANDSCAPE_SKY = 120;

/**
 * Flat vector art: a flat sky whose top fifth is uniform rows, a sun, and hills of flat colour (800 x 600). Few corners
 * (the hills' vertices), and a crop of its left part keeps more sky than a border cut allows.
 */
export async function flatLandscape(): Promise<RgbImage> {
  const [width, height] = [800, 600];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="${width}" height="${height}" fill="hsl(340,45%,90%)"/>
    <circle cx="660" cy="${FLAT_LANDSCAPE_SKY + 32}" r="32" fill="hsl(160,70%,65%)"/>
    <polygon points="0,260 160,230 330,250 520,190 720,215 800,205 800,600 0,600" fill="hsl(90,35%,60%)"/>
    <polygon points="0,360 180,300 300,380 470,290 640,350 800,310 800,600 0,600" fill="hsl(100,35%,45%)"/>
    <polygon points="0,430 140,400 260,470 430,380 600,450 800,420 800,600 0,600" fill="hsl(110,35%,30%)"/>
    <polygon points="220,520 250,450 280,520" fill="hsl(120,40%,18%)"/><polygon points="560,540 590,470 620,540" fill="hsl(120,40%,18%)"/></svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/** Where `badgeLogo`'s badge starts: a border cut takes the plain ground left of it (under a quarter), not above it. */
export const BADGE_LOGO_BADGE = { left: 100, top: 300, right: 390, bottom: 590 };

/**
 * A logo on a plain ground (1040 x 686): a rounded badge with a ring and a bar in it, and a word of flat glyphs beside
 * it, the ground above them a third of the height and under a quarter on the other sides.
 */
export async function badgeLogo(): Promise<RgbImage> {
  const { left, top, right, bottom } = BADGE_LOGO_BADGE;
  const [cx, cy] = [(left + right) / 2, (top + bottom) / 2];
  const glyphs = [
    `<rect x="450" y="390" width="60" height="90" rx="28"/>`,
    `<rect x="530" y="410" width="20" height="70"/>`,
    `<circle cx="600" cy="445" r="36"/>`,
    `<rect x="660" y="380" width="22" height="100"/>`,
    `<polygon points="710,480 745,390 780,480 765,480 745,430 725,480"/>`,
    `<rect x="800" y="410" width="70" height="22"/>`,
    `<circle cx="925" cy="445" r="30"/>`,
  ];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1040" height="686">
    <rect width="1040" height="686" fill="#f2f4f4"/>
    <rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" rx="40" fill="#7a22a6"/>
    <circle cx="${cx}" cy="${cy}" r="80" fill="none" stroke="#f4f0f8" stroke-width="30"/>
    <rect x="${cx}" y="${cy - 12}" width="70" height="24" fill="#f4f0f8"/>
    <g fill="#7a22a6">${glyphs.join('')}</g></svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/** A plain linear gradient through `stops` (CSS colours) from the top-left corner to (x2, y2) (0-1): no corner at all. */
export async function linearGradient(stops: string[], x2 = 1, y2 = 0.6, width = 800, height = 600): Promise<RgbImage> {
  const offsets = stops.map((colour, i) => `<stop offset="${i / (stops.length - 1)}" stop-color="${colour}"/>`).join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="${x2}" y2="${y2}">${offsets}</linearGradient></defs>
    <rect width="${width}" height="${height}" fill="url(#g)"/></svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}

/**
 * A night sky: a bright elliptical galaxy in the middle of a black field and `stars` small stars scattered by `seed`.
 * Two skies of other seeds share their colours and layout, not their stars.
 */
export async function starField(seed: number, stars = 70, width = 900, height = 600): Promise<RgbImage> {
  const rnd = seededRandom(seed);
  const points = Array.from({ length: stars }, () => {
    const radius = 1 + rnd() * 1.8;
    const warmth = Math.floor(rnd() * 60);
    return `<circle cx="${(rnd() * width).toFixed(1)}" cy="${(rnd() * height).toFixed(1)}" r="${radius.toFixed(2)}" fill="rgb(255,${235 - warmth},${215 - 2 * warmth})"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><radialGradient id="galaxy"><stop offset="0" stop-color="rgb(255,240,210)"/><stop offset="0.35" stop-color="rgb(170,140,100)"/><stop offset="1" stop-color="rgb(0,0,0)" stop-opacity="0"/></radialGradient>
    <filter id="soft"><feGaussianBlur stdDeviation="0.6"/></filter></defs>
    <rect width="${width}" height="${height}" fill="rgb(4,4,8)"/>
    <ellipse cx="${width / 2}" cy="${height / 2}" rx="${width * 0.2}" ry="${height * 0.12}" fill="url(#galaxy)"/>
    <g filter="url(#soft)">${points.join('')}</g></svg>`;
  return toRgb(sharp(Buffer.from(svg)));
}
