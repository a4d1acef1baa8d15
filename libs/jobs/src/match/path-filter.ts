import { InputRefusedError } from '../contracts';

/**
 * name_filter and path_filter: shell-style globs. name_filter matches the file name (the part after the last `/`);
 * path_filter matches the folder part (everything before the last `/`, empty for top-level files). `*` matches any
 * run of characters except `/`, `**` any run including `/`, `?` one character except `/`, `[abc]`, `[a-z]` and
 * `[!abc]` one character of (or not of) a set; a `[` without a closing `]` is itself. Matching is case-sensitive and
 * covers the whole name or folder: write `*sale*` to find "sale" anywhere in a name.
 *
 * Globs used to become regular expressions, which backtrack: `*a*a*a…*b` against a long run of `a` took longer than any
 * client waits (each extra `*a` ~8× longer), blocking the process that ran the search. A compiled glob is instead run
 * as a set of states advanced together over the text, one pass and no backtracking: its work is proportional to the
 * text's length times the pattern's length / 32, whatever the pattern.
 */

/** The longest glob accepted: far beyond any real name or folder pattern, and it bounds the work per path. */
export const MAX_GLOB_LENGTH = 1000;

/** A glob that cannot be compiled; the message is for the caller and does not name the parameter. */
export class GlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobError';
  }
}

const SLASH = 0x2f;

/** One pattern position: a star (zero or more characters of its class) or exactly one character of its class. */
interface Step {
  star: boolean;
  matches(codePoint: number): boolean;
}

const notSlash = (c: number) => c !== SLASH;
const anything = () => true;

/** A bracket set `[…]` (the text between the brackets, `!` included), as the regular expressions it replaced read it. */
function setStep(glob: string, body: number[]): Step {
  const negate = body[0] === 0x21; // `!`
  const items = negate ? body.slice(1) : body;
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < items.length; i++) {
    // `a-z` is a range; a `-` first or last in the set is itself.
    if (items[i + 1] === 0x2d && i + 2 < items.length) {
      const [low, high] = [items[i], items[i + 2]];
      if (low > high) {
        throw new GlobError(
          `the set "${glob}" has the range ${String.fromCodePoint(low)}-${String.fromCodePoint(high)}, which runs backwards; write ranges low to high, like [a-z].`,
        );
      }
      ranges.push([low, high]);
      i += 2;
    } else {
      ranges.push([items[i], items[i]]);
    }
  }
  // `[!]` (nothing excluded) matches any one character, as the regular expression `[^]` it used to become did.
  return { star: false, matches: (c) => ranges.some(([low, high]) => c >= low && c <= high) !== negate };
}

function parseGlob(glob: string): Step[] {
  if (glob.length > MAX_GLOB_LENGTH) throw new GlobError(`the pattern is longer than ${MAX_GLOB_LENGTH} characters.`);
  const chars = Array.from(glob, (c) => c.codePointAt(0)!);
  const steps: Step[] = [];
  const addStar = (crossesSlash: boolean) => {
    const previous = steps[steps.length - 1];
    // Adjacent stars match what the widest of them matches: one state instead of several keeps the closure one step.
    if (previous?.star) {
      if (crossesSlash) previous.matches = anything;
      return;
    }
    steps.push({ star: true, matches: crossesSlash ? anything : notSlash });
  };
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === 0x2a) {
      // `*`
      const double = chars[i + 1] === 0x2a;
      addStar(double);
      if (double) i++;
    } else if (c === 0x3f) {
      // `?`
      steps.push({ star: false, matches: notSlash });
    } else if (c === 0x5b) {
      // `[`: a `]` right after `[` (or `[!`) belongs to the set; without a closing `]`, `[` is itself.
      const end = chars.indexOf(0x5d, i + 2);
      if (end < 0) {
        steps.push({ star: false, matches: (x) => x === c });
        continue;
      }
      steps.push(setStep(String.fromCodePoint(...chars.slice(i, end + 1)), chars.slice(i + 1, end)));
      i = end;
    } else {
      steps.push({ star: false, matches: (x) => x === c });
    }
  }
  return steps;
}

/** Per character: the states it advances (a one-character step that matches it) and keeps (a star that matches it). */
interface CharMasks {
  advance: Uint32Array;
  stay: Uint32Array;
}

/** Distinct non-ASCII characters whose masks are kept; more are computed each time (still linear, just slower). */
const MAX_CACHED_CHARS = 1024;

/**
 * A compiled glob. State j (bit j) means "the first j steps matched the text so far"; all states advance together
 * (bit-parallel, 32 per word), so no input makes it revisit text. Real globs have under 32 steps and run on one number
 * per character, about as fast as the regular expressions did.
 */
export class Glob {
  private readonly steps: Step[];
  /** Words per state set: states 0..steps.length. */
  private readonly words: number;
  /** Bit j set when step j is a star: reaching state j also reaches j + 1 (the star matching nothing). */
  private readonly stars: Uint32Array;
  private readonly ascii: CharMasks[] = [];
  private readonly other = new Map<number, CharMasks>();
  /** State sets reused by every `test` (which runs to completion synchronously): a collection is tested path by path. */
  private readonly current: Uint32Array;
  private readonly next: Uint32Array;

  constructor(readonly source: string) {
    this.steps = parseGlob(source);
    this.words = Math.ceil((this.steps.length + 1) / 32);
    this.stars = new Uint32Array(this.words);
    this.steps.forEach((step, j) => {
      if (step.star) this.stars[j >>> 5] |= 1 << (j & 31);
    });
    for (let c = 0; c < 128; c++) this.ascii.push(this.computeMasks(c));
    this.current = new Uint32Array(this.words);
    this.next = new Uint32Array(this.words);
  }

  /** Whether the glob matches the whole of `text`. */
  test(text: string): boolean {
    const accept = this.steps.length;
    const states = this.words === 1 ? this.runOneWord(text) : this.runWords(text);
    return states !== null && (states[accept >>> 5] & (1 << (accept & 31))) !== 0;
  }

  /** The states after `text` when they fit one word; null as soon as none is left. */
  private runOneWord(text: string): Uint32Array | null {
    const stars = this.stars[0];
    let states = 1 | ((1 & stars) << 1);
    for (let i = 0; i < text.length; i++) {
      const c = text.codePointAt(i)!;
      if (c > 0xffff) i++;
      const masks = c < 128 ? this.ascii[c] : this.masksOf(c);
      states = ((states & masks.advance[0]) << 1) | (states & masks.stay[0]);
      if (states === 0) return null;
      states |= (states & stars) << 1;
    }
    this.current[0] = states;
    return this.current;
  }

  /** The states after `text` over several words; null as soon as none is left. */
  private runWords(text: string): Uint32Array | null {
    let { current, next } = this;
    current.fill(0);
    next.fill(0);
    current[0] = 1;
    this.close(current, 0);
    for (let i = 0; i < text.length; i++) {
      const c = text.codePointAt(i)!;
      if (c > 0xffff) i++;
      const { advance, stay } = c < 128 ? this.ascii[c] : this.masksOf(c);
      // Each character moves a state at most two steps on (its own step, then a star matching nothing), so after
      // i + 1 characters no state is past 2i + 3: a long pattern costs only the words a text of this length can reach.
      const last = Math.min(this.words - 1, (2 * i + 3) >>> 5);
      let carry = 0;
      let alive = 0;
      for (let w = 0; w <= last; w++) {
        const moved = current[w] & advance[w];
        next[w] = (moved << 1) | carry | (current[w] & stay[w]);
        carry = moved >>> 31;
        alive |= next[w];
      }
      if (alive === 0) return null;
      this.close(next, last);
      [current, next] = [next, current];
    }
    return current;
  }

  /** Adds the states reached by stars matching nothing. Stars are never adjacent, so one shift is the whole closure. */
  private close(states: Uint32Array, last: number): void {
    let carry = 0;
    for (let w = 0; w <= last; w++) {
      const fromStars = states[w] & this.stars[w];
      states[w] |= (fromStars << 1) | carry;
      carry = fromStars >>> 31;
    }
  }

  private masksOf(c: number): CharMasks {
    const cached = this.other.get(c);
    if (cached) return cached;
    const masks = this.computeMasks(c);
    if (this.other.size < MAX_CACHED_CHARS) this.other.set(c, masks);
    return masks;
  }

  private computeMasks(c: number): CharMasks {
    const masks = { advance: new Uint32Array(this.words), stay: new Uint32Array(this.words) };
    this.steps.forEach((step, j) => {
      if (step.matches(c)) (step.star ? masks.stay : masks.advance)[j >>> 5] |= 1 << (j & 31);
    });
    return masks;
  }
}

/** Compiles a glob; throws GlobError when it is too long or has a set with a backwards range. */
export function compileGlob(glob: string): Glob {
  return new Glob(glob);
}

export interface PathFilters {
  name_filter?: string;
  path_filter?: string;
}

function compileFilter(parameter: keyof PathFilters, glob: string | undefined): Glob | null {
  if (!glob) return null;
  try {
    return compileGlob(glob);
  } catch (error) {
    if (error instanceof GlobError) throw new InputRefusedError(`${parameter}: ${error.message}`);
    throw error;
  }
}

/** A predicate over collection paths, or null when no filter is set. Refuses (as the caller's error) a bad glob. */
export function pathPredicate(filters: PathFilters): ((filepath: string) => boolean) | null {
  const name = compileFilter('name_filter', filters.name_filter);
  const folder = compileFilter('path_filter', filters.path_filter);
  if (!name && !folder) return null;
  return (filepath) => {
    const slash = filepath.lastIndexOf('/');
    if (name && !name.test(filepath.slice(slash + 1))) return false;
    if (folder && !folder.test(slash < 0 ? '' : filepath.slice(0, slash))) return false;
    return true;
  };
}
