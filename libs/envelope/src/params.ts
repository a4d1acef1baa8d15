import { ParamError } from './errors';
import { quoteInput } from './quote';

/** A file part of a multipart body. */
export interface UploadedFile {
  field: string;
  filename: string;
  data: Buffer;
  contentType?: string;
}

interface KeyParts {
  base: string;
  /** Numeric index of `name[n]`; `append` for `name[]`; undefined for a plain `name`. */
  index?: number | 'append';
}

const INDEXED_KEY = /^(.+?)\[(\d*)\]$/;

/** Splits `name[3]`, `name%5B3%5D`, `name[]` and `name` into base name and index. */
export function parseKey(rawKey: string): KeyParts {
  const key = rawKey.replace(/%5B/gi, '[').replace(/%5D/gi, ']');
  const match = INDEXED_KEY.exec(key);
  if (!match) return { base: key };
  return { base: match[1], index: match[2] === '' ? 'append' : Number(match[2]) };
}

interface Entry<T> {
  parts: KeyParts;
  value: T;
  /** Arrival order, which orders `name[]` entries and breaks ties. */
  seq: number;
}

const TRUE_WORDS = new Set(['true', '1']);
const FALSE_WORDS = new Set(['false', '0']);

/**
 * Integers are kept within Postgres `integer` whatever a rule allows: past it an offset or limit fails in SQL (an
 * HTTP 500), and past 2^53 JavaScript silently rounds it. No count, offset or limit of a collection comes near it.
 */
export const MAX_INT = 2_147_483_647;
export const MIN_INT = -2_147_483_648;

export interface NumberRule {
  default?: number;
  min?: number;
  max?: number;
}

/**
 * The merged parameters of one call: query string, urlencoded body and multipart fields and files, in arrival order.
 * Every accessor validates and throws a ParamError naming the parameter, so services read typed values only.
 */
export class Params {
  private readonly fields: Entry<string>[];
  private readonly uploads: Entry<UploadedFile>[];

  constructor(fields: Iterable<readonly [string, string]>, files: Iterable<UploadedFile> = []) {
    let seq = 0;
    this.fields = [...fields].map(([k, v]) => ({ parts: parseKey(k), value: v, seq: seq++ }));
    this.uploads = [...files].map((f) => ({ parts: parseKey(f.field), value: f, seq: seq++ }));
  }

  /** Names present (base names, without indexes), for diagnostics. */
  names(): string[] {
    return [...new Set([...this.fields, ...this.uploads].map((e) => e.parts.base))];
  }

  has(name: string): boolean {
    return this.fields.some((e) => e.parts.base === name) || this.uploads.some((e) => e.parts.base === name);
  }

  /**
   * A single value: the plain key wins, else a lone indexed one (`name[0]`). Empty strings count as absent. A name sent
   * more than once with different values is refused: taking one of them silently would act on an input the client did
   * not mean (the same value twice, e.g. in the query string and the body, is harmless and accepted).
   */
  string(name: string, options: { maxLength?: number } = {}): string | undefined {
    const candidates = this.fields.filter((e) => e.parts.base === name);
    if (candidates.length === 0) return undefined;
    const plain = candidates.filter((e) => e.parts.index === undefined);
    const sent = (plain.length > 0 ? plain : candidates).filter((e) => e.value !== '');
    if (sent.length === 0) return undefined;
    const value = storable(name, sent[0].value);
    if (sent.some((e) => e.value !== value)) {
      throw new ParamError(`${name}: this parameter was sent ${sent.length} times with different values; send it once.`);
    }
    if (options.maxLength !== undefined && value.length > options.maxLength) {
      throw new ParamError(`${name}: the value is longer than ${options.maxLength} characters.`);
    }
    return value;
  }

  requireString(name: string): string {
    const value = this.string(name);
    if (value === undefined) throw new ParamError(`${name}: this parameter is required.`);
    return value;
  }

  bool(name: string, defaultValue = false): boolean {
    const raw = this.string(name);
    if (raw === undefined) return defaultValue;
    const lower = raw.trim().toLowerCase();
    if (TRUE_WORDS.has(lower)) return true;
    if (FALSE_WORDS.has(lower)) return false;
    throw new ParamError(`${name}: ${quoteInput(raw)} is not a boolean; use true or false.`);
  }

  /** An integer within the rule's range, itself within MIN_INT..MAX_INT; the refusal states the range. */
  int(name: string, rule: NumberRule = {}): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return rule.default;
    const text = raw.trim();
    if (!/^[+-]?\d+$/.test(text)) throw new ParamError(`${name}: ${quoteInput(raw)} is not an integer.`);
    const min = Math.max(rule.min ?? MIN_INT, MIN_INT);
    const max = Math.min(rule.max ?? MAX_INT, MAX_INT);
    const value = Number(text);
    if (value < min || value > max) throw new ParamError(`${name}: ${quoteInput(text)} is not an integer from ${min} to ${max}.`);
    return value;
  }

  number(name: string, rule: NumberRule = {}): number | undefined {
    const raw = this.string(name);
    if (raw === undefined) return rule.default;
    const value = Number(raw.trim());
    if (raw.trim() === '' || !Number.isFinite(value)) throw new ParamError(`${name}: ${quoteInput(raw)} is not a number.`);
    return checkRange(name, value, rule);
  }

  /**
   * A list: `base[n]` ordered by n, then `base[]` in arrival order; a plain `base` or the single-item alias
   * (`filepath` for `filepaths`) counts as one more entry. Empty strings are kept so that positions line up
   * between parallel lists (`urls[1]` with `filepaths[1]`).
   */
  list(base: string, alias?: string): string[] {
    return ordered(this.fields.filter((e) => e.parts.base === base || (alias !== undefined && e.parts.base === alias)).map(storableEntry));
  }

  /** Indexed values by position, keeping gaps as undefined (parallel lists such as `image_ids[n]`). */
  indexed(base: string, alias?: string): Map<number, string> {
    const out = new Map<number, string>();
    const entries = this.fields.filter((e) => e.parts.base === base || (alias !== undefined && e.parts.base === alias)).map(storableEntry);
    let next = 0;
    for (const e of [...entries].sort(byIndexThenSeq)) {
      const position = typeof e.parts.index === 'number' ? e.parts.index : next;
      out.set(position, e.value);
      next = Math.max(next, position + 1);
    }
    return out;
  }

  /**
   * The one upload of a single-file parameter (`image`, `image1`, `image_upload`): more than one file under the name
   * (plain or `name[n]`) is refused rather than all but the first ignored.
   */
  file(name: string): UploadedFile | undefined {
    const sent = this.uploads.filter((e) => e.parts.base === name);
    if (sent.length > 1) throw new ParamError(`${name}: ${sent.length} files were sent under this name; send one.`);
    return sent[0]?.value;
  }

  files(base: string, alias?: string): UploadedFile[] {
    return ordered(this.uploads.filter((e) => e.parts.base === base || (alias !== undefined && e.parts.base === alias)));
  }

  /** File fields whose names no operation reads; used to tell a client that sent `imag` instead of `image`. */
  fileFieldNames(): string[] {
    return [...new Set(this.uploads.map((e) => e.parts.base))];
  }
}

/**
 * No parameter takes a NUL character: Postgres refuses one in text and jsonb outright (an error, not a non-match), so a
 * value holding one, read anywhere (a path, an image_id, a keyword), would fail its write or lookup as an internal error.
 */
function storable(name: string, value: string): string {
  if (value.includes('\u0000')) throw new ParamError(`${name}: the value contains a NUL character (\\u0000), which no parameter accepts.`);
  return value;
}

function storableEntry(entry: Entry<string>): Entry<string> {
  storable(entry.parts.base, entry.value);
  return entry;
}

function checkRange(name: string, value: number, rule: NumberRule): number {
  if (rule.min !== undefined && value < rule.min) throw new ParamError(`${name}: ${value} is below the minimum of ${rule.min}.`);
  if (rule.max !== undefined && value > rule.max) throw new ParamError(`${name}: ${value} is above the maximum of ${rule.max}.`);
  return value;
}

function byIndexThenSeq<T>(a: Entry<T>, b: Entry<T>): number {
  const rank = (e: Entry<T>) => (typeof e.parts.index === 'number' ? e.parts.index : Number.MAX_SAFE_INTEGER);
  return rank(a) - rank(b) || a.seq - b.seq;
}

function ordered<T>(entries: Entry<T>[]): T[] {
  return [...entries].sort(byIndexThenSeq).map((e) => e.value);
}
