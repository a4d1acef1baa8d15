import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputRefusedError } from '../contracts';
import { compileGlob, GlobError, MAX_GLOB_LENGTH, pathPredicate } from './path-filter';

/**
 * The regular expression a glob used to become, kept as the reference of the documented semantics. It backtracks, so
 * the property tests give it only short patterns.
 */
function referenceRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        out += '.*';
        i++;
      } else {
        out += '[^/]*';
      }
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let set = glob.slice(i + 1, end);
      const negate = set.startsWith('!');
      if (negate) set = set.slice(1);
      out += `[${negate ? '^' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else {
      out += c.replace(/[.+^${}()|\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}

/**
 * A second reference that never explodes: the same semantics as a recursive matcher memoised on (pattern position,
 * text position), O(pattern × text), for patterns long enough to need several words of states.
 */
function memoisedMatch(glob: string, text: string): boolean {
  const memo = new Map<number, boolean>();
  const at = (p: number, t: number): boolean => {
    const key = p * (text.length + 1) + t;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const c = glob[p];
    if (p === glob.length) result = t === text.length;
    else if (c === '*' && glob[p + 1] === '*') result = at(p + 2, t) || (t < text.length && at(p, t + 1));
    else if (c === '*') result = at(p + 1, t) || (t < text.length && text[t] !== '/' && at(p, t + 1));
    else if (c === '?') result = t < text.length && text[t] !== '/' && at(p + 1, t + 1);
    else if (c === '[' && glob.indexOf(']', p + 2) >= 0) {
      const end = glob.indexOf(']', p + 2);
      result = t < text.length && referenceRegExp(glob.slice(p, end + 1)).test(text[t]) && at(end + 1, t + 1);
    } else result = t < text.length && text[t] === c && at(p + 1, t + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

/** Patterns and paths over a small alphabet with every glob metacharacter, so that sets, ranges and stars collide. */
const ALPHABET = ['a', 'b', 'c', '/', '*', '?', '[', ']', '!', '-', '.'];
const text = (maxLength: number) => fc.array(fc.constantFrom(...ALPHABET), { maxLength }).map((chars) => chars.join(''));

/** Whether `glob` compiles; the reference refuses the same globs (a backwards range is a regular-expression error). */
function compiles(glob: string): boolean {
  try {
    compileGlob(glob);
    return true;
  } catch (error) {
    if (!(error instanceof GlobError)) throw error;
    return false;
  }
}

/** Runs `work` and returns how long it took, in ms. */
function timed(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

describe('globs', () => {
  it('match the documented examples', () => {
    const cases: Array<[string, string, boolean]> = [
      ['*.png', 'a.png', true],
      ['*.png', 'a.jpg', false],
      ['*sale*', 'summer-sale-2026.jpg', true],
      ['*sale*', 'summer.jpg', false],
      ['Sale*', 'sale.jpg', false],
      ['img[0-2].jpg', 'img1.jpg', true],
      ['img[0-2].jpg', 'img3.jpg', false],
      ['img[!0-2].jpg', 'img3.jpg', true],
      ['img[abc].jpg', 'imgb.jpg', true],
      ['img?.jpg', 'img7.jpg', true],
      ['img?.jpg', 'img77.jpg', false],
      ['catalog/*', 'catalog/2026', true],
      ['catalog/*', 'catalog/2026/spring', false],
      ['catalog/**', 'catalog/2026/spring', true],
      ['catalog/?', 'catalog//', false],
      ['[a', '[a', true],
      ['a]', 'a]', true],
      ['[]a]', ']', true],
      ['', '', true],
      ['*', '', true],
      ['**', 'a/b/c', true],
    ];
    for (const [glob, subject, expected] of cases) expect([glob, subject, compileGlob(glob).test(subject)]).toEqual([glob, subject, expected]);
  });

  it('agree with the regular expressions they replaced, on random short patterns and paths', () => {
    fc.assert(
      fc.property(text(8), fc.array(text(10), { minLength: 1, maxLength: 8 }), (glob, subjects) => {
        let reference: RegExp;
        try {
          reference = referenceRegExp(glob);
        } catch {
          // Only a backwards range (`[b-a]`) made an invalid regular expression; the glob refuses it instead.
          expect(compiles(glob)).toBe(false);
          return;
        }
        const compiled = compileGlob(glob);
        for (const subject of subjects) expect(compiled.test(subject)).toBe(reference.test(subject));
      }),
      { numRuns: 3000 },
    );
  });

  it('agree with a memoised matcher on long patterns, whose states span several words', () => {
    // Mostly stars and one letter, so that the random texts often match and the states cross the 32-bit boundaries.
    const part = fc.constantFrom('*', '**', '?', 'a', 'b', '/', '[ab]', '[!a]');
    const glob = fc.array(part, { minLength: 20, maxLength: 90 }).map((parts) => parts.join(''));
    const subject = fc.array(fc.constantFrom('a', 'a', 'a', 'b', '/'), { maxLength: 120 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(glob, fc.array(subject, { minLength: 1, maxLength: 6 }), (pattern, subjects) => {
        const compiled = compileGlob(pattern);
        for (const s of subjects) expect(compiled.test(s)).toBe(memoisedMatch(pattern, s));
      }),
      { numRuns: 500 },
    );
    // Deliberate matches across word boundaries: 40 and 70 literal steps, each preceded by a star.
    for (const n of [40, 70]) {
      const pattern = '*a'.repeat(n);
      expect(compileGlob(pattern).test('xa'.repeat(n))).toBe(true);
      expect(compileGlob(pattern).test('xa'.repeat(n - 1))).toBe(false);
    }
  });

  it('match hostile patterns in bounded time (the regular expressions took minutes)', () => {
    const name = `${'a'.repeat(56)}.jpg`;
    // 14 `*a` took the regular expression more than 90 s (each extra `*a` ~8× longer); the whole test is bounded at 1 s.
    // With whether each matches 300 folders `a/` then `b` (only `**` crosses a `/`).
    const hostile: Array<[string, boolean]> = [
      [`${'*a'.repeat(14)}*b`, false],
      [`${'**a'.repeat(14)}**b`, true],
      [`${'*a'.repeat(499)}*b`, false],
      [`${'?*'.repeat(499)}b`, false],
      [`${'*[a]'.repeat(249)}*b`, false],
    ];
    const elapsed = timed(() => {
      for (const [glob, crossesFolders] of hostile) {
        expect(compileGlob(glob).test(name)).toBe(false);
        expect(compileGlob(glob).test('a'.repeat(1000))).toBe(false);
        expect(compileGlob(glob).test(`${'a/'.repeat(300)}b`)).toBe(crossesFolders);
      }
    });
    expect(elapsed).toBeLessThan(1000);
  });

  it('refuse a pattern longer than the limit and a backwards range, naming the parameter', () => {
    expect(compiles('*'.repeat(MAX_GLOB_LENGTH))).toBe(true);
    expect(() => compileGlob('*'.repeat(MAX_GLOB_LENGTH + 1))).toThrow(new GlobError(`the pattern is longer than ${MAX_GLOB_LENGTH} characters.`));
    expect(() => pathPredicate({ name_filter: 'x'.repeat(MAX_GLOB_LENGTH + 1) })).toThrow(
      new InputRefusedError(`name_filter: the pattern is longer than ${MAX_GLOB_LENGTH} characters.`),
    );
    expect(() => pathPredicate({ path_filter: 'img[z-a]' })).toThrow(
      new InputRefusedError('path_filter: the set "[z-a]" has the range z-a, which runs backwards; write ranges low to high, like [a-z].'),
    );
  });
});

describe('pathPredicate', () => {
  it('applies name_filter to the file name and path_filter to the folder part', () => {
    expect(pathPredicate({})).toBeNull();
    const allowed = pathPredicate({ name_filter: '*.jpg', path_filter: 'art/**' })!;
    expect(['art/posters/a.jpg', 'art/a.jpg', 'art/b.png', 'a.jpg', 'other/a.jpg'].filter(allowed)).toEqual(['art/posters/a.jpg']);
    // Top-level files have an empty folder part.
    expect(pathPredicate({ path_filter: '*' })!('a.jpg')).toBe(true);
    expect(pathPredicate({ path_filter: '?*' })!('a.jpg')).toBe(false);
  });

  it('counts a character outside the basic plane as one character', () => {
    expect(pathPredicate({ name_filter: '?.jpg' })!('dir/😀.jpg')).toBe(true);
    expect(pathPredicate({ name_filter: '[😀é].jpg' })!('é.jpg')).toBe(true);
    // And in a pattern whose states span two words.
    expect(compileGlob('?'.repeat(40)).test('😀'.repeat(40))).toBe(true);
    expect(compileGlob('?'.repeat(40)).test('😀'.repeat(39))).toBe(false);
    expect(compileGlob('*é'.repeat(20)).test('xé'.repeat(20))).toBe(true);
  });
});
