import path from 'node:path';

/**
 * An import manifest lists images of the public index with where they were found. Two forms, chosen by the first
 * non-blank character (`{` = JSON lines, anything else = CSV with a header row):
 *
 *   {"image": "shots/a.jpg", "image_url": "https://cdn.example.com/a.jpg", "backlink": "https://example.com/page", "crawl_date": "2024-05-01"}
 *
 *   image,image_url,backlink,domain,crawl_date
 *   https://cdn.example.com/a.jpg,,https://example.com/page,,2024-05-01
 *
 * - `image` (required): a local file (relative to the manifest's folder) or an http(s) URL to read the bytes from.
 * - `image_url`: the image's public address reported in results; defaults to `image` when that is a URL.
 * - `backlink` (required): the page the image was found on.
 * - `domain`: defaults to the backlink's host name without `www.`.
 * - `crawl_date`: `YYYY-MM-DD` (a longer ISO date is cut to its day); optional.
 * Blank lines and lines starting with `#` are skipped.
 */
export interface ManifestEntry {
  /** 1-based line number in the manifest, for progress and error messages. */
  line: number;
  /** Absolute file path or http(s) URL. */
  source: string;
  image_url: string;
  backlink: string;
  domain: string;
  crawl_date: string | null;
}

export class ManifestError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'ManifestError';
  }
}

const CSV_COLUMNS = ['image', 'image_url', 'backlink', 'domain', 'crawl_date'] as const;

function isUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

export function domainOf(url: string): string {
  return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
}

/** Splits one CSV record (RFC 4180 quoting; no newlines inside fields). */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields.map((f) => f.trim());
}

function entryFrom(raw: Record<string, unknown>, line: number, baseDir: string): ManifestEntry {
  const text = (key: string) => {
    const v = raw[key];
    return v === undefined || v === null ? '' : String(v).trim();
  };
  const image = text('image');
  const backlink = text('backlink');
  if (!image) throw new ManifestError(line, '"image" is required.');
  if (!backlink || !isUrl(backlink)) throw new ManifestError(line, '"backlink" must be an http(s) URL.');
  const imageUrl = text('image_url') || (isUrl(image) ? image : '');
  if (!imageUrl) throw new ManifestError(line, '"image_url" is required when "image" is a local file.');
  const date = text('crawl_date');
  if (date && !/^\d{4}-\d{2}-\d{2}/.test(date)) throw new ManifestError(line, `"crawl_date" must be YYYY-MM-DD, not "${date}".`);
  return {
    line,
    source: isUrl(image) ? image : path.resolve(baseDir, image),
    image_url: imageUrl,
    backlink,
    domain: text('domain') || domainOf(backlink),
    crawl_date: date ? date.slice(0, 10) : null,
  };
}

/** Parses a whole manifest; `baseDir` resolves relative file paths. Throws ManifestError naming the bad line. */
export function parseManifest(text: string, baseDir: string): ManifestEntry[] {
  const lines = text.split(/\r?\n/);
  const firstContent = lines.find((l) => l.trim() !== '' && !l.trim().startsWith('#'))?.trim() ?? '';
  const entries: ManifestEntry[] = [];
  if (firstContent.startsWith('{')) {
    lines.forEach((l, i) => {
      const trimmed = l.trim();
      if (trimmed === '' || trimmed.startsWith('#')) return;
      let raw: unknown;
      try {
        raw = JSON.parse(trimmed);
      } catch {
        throw new ManifestError(i + 1, 'not a JSON object.');
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ManifestError(i + 1, 'not a JSON object.');
      entries.push(entryFrom(raw as Record<string, unknown>, i + 1, baseDir));
    });
    return entries;
  }
  let header: string[] | null = null;
  lines.forEach((l, i) => {
    const trimmed = l.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const fields = splitCsvLine(l);
    if (!header) {
      header = fields.map((f) => f.toLowerCase());
      const unknown = header.filter((h) => !(CSV_COLUMNS as readonly string[]).includes(h));
      if (!header.includes('image') || !header.includes('backlink') || unknown.length > 0) {
        throw new ManifestError(i + 1, `the CSV header must name columns among ${CSV_COLUMNS.join(', ')} (image and backlink required).`);
      }
      return;
    }
    const raw: Record<string, string> = {};
    header.forEach((name, at) => (raw[name] = fields[at] ?? ''));
    entries.push(entryFrom(raw, i + 1, baseDir));
  });
  return entries;
}
