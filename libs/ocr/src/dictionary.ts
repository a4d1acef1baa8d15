import grapeData from '../data/grape-varieties.json';
import regionData from '../data/wine-regions.json';
import countryData from '../data/countries.json';
import colorData from '../data/wine-colors.json';
import termData from '../data/label-terms.json';
import commonWordData from '../data/common-words.json';
import { tokenize } from './normalize';

export type TermCategory = 'variety' | 'region' | 'country' | 'color' | 'misc';

/** One spelling of one dictionary term, ready for matching. */
export interface DictEntry {
  category: TermCategory;
  /** The term's one name (first spelling of the data entry): regions, countries and colours are reported by it. */
  canonical: string;
  /** This spelling as the data writes it ("Shiraz" of Syrah): varieties are reported as printed. */
  spelling: string;
  /** Normalized words of this spelling. */
  words: string[];
  key: string;
  /** Letters without spaces, which scale the OCR-error tolerance. */
  letters: number;
  /** region: its country; misc: the country the term implies, if any. */
  country?: string;
  /** region: the broader region of an appellation. */
  parent?: string;
  /** variety: 'red' or 'white'. */
  wineColor?: string;
  /** Abbreviations such as DOC or DO only count when printed in capitals ("do" is an English word). */
  upperOnly: boolean;
}

export interface Dictionary {
  entries: DictEntry[];
  byKey: Map<string, DictEntry[]>;
  byWordCount: Map<number, DictEntry[]>;
  commonWords: Set<string>;
  /**
   * Regions and countries spelled with common words only ("Dry Creek Valley"): too likely in prose to be looked
   * for within a line, they count only as a whole line of two words or more, exactly (key → entries).
   */
  wholeLine: Map<string, DictEntry[]>;
  maxWords: number;
  versions: Record<string, string>;
}

/** Label abbreviations expanded before matching, on both sides: "St-Julien" is "Saint-Julien". */
const ABBREVIATIONS: Record<string, string> = { st: 'saint', ste: 'sainte', mt: 'mount', sta: 'santa' };

export function matchWords(text: string): string[] {
  return tokenize(text).map((t) => ABBREVIATIONS[t] ?? t);
}

/** Short all-capital abbreviations (DO, DOC, DOCa, AOC, GG, USA) must be printed in capitals to count. */
const UPPER_ONLY_MAX_LENGTH = 4;
function isUpperOnly(spelling: string): boolean {
  return spelling.length <= UPPER_ONLY_MAX_LENGTH && /^[A-Z]{2,}[a-z]?$/.test(spelling);
}

function makeEntries(
  category: TermCategory,
  spellings: string[],
  extra: Partial<DictEntry> = {},
  canonical: string = spellings[0],
): DictEntry[] {
  const seen = new Set<string>();
  const out: DictEntry[] = [];
  for (const spelling of spellings) {
    const words = matchWords(spelling);
    const key = words.join(' ');
    if (words.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push({
      category,
      canonical,
      spelling,
      words,
      key,
      letters: key.replace(/ /g, '').length,
      upperOnly: isUpperOnly(spelling),
      ...extra,
    });
  }
  return out;
}

function buildEntries(): DictEntry[] {
  const entries: DictEntry[] = [];
  for (const wineColor of ['red', 'white'] as const) {
    for (const spellings of grapeData[wineColor]) entries.push(...makeEntries('variety', spellings, { wineColor }));
  }
  const regions = regionData.countries as Record<string, Record<string, string[]>>;
  for (const [country, byRegion] of Object.entries(regions)) {
    for (const [regionNames, appellations] of Object.entries(byRegion)) {
      const regionSpellings = regionNames.split('|');
      entries.push(...makeEntries('region', regionSpellings, { country }));
      for (const appellation of appellations) {
        entries.push(...makeEntries('region', appellation.split('|'), { country, parent: regionSpellings[0] }));
      }
    }
  }
  for (const spellings of countryData.countries) entries.push(...makeEntries('country', spellings));
  for (const [colorClass, words] of Object.entries(colorData.colors)) {
    entries.push(...makeEntries('color', words, {}, colorClass));
  }
  const termCountries = termData.countries as Record<string, string>;
  for (const spellings of termData.terms) {
    entries.push(...makeEntries('misc', spellings, { country: termCountries[spellings[0]] }));
  }
  return entries;
}

function pushTo<K>(map: Map<K, DictEntry[]>, key: K, e: DictEntry): void {
  const list = map.get(key);
  if (list) list.push(e);
  else map.set(key, [e]);
}

let cached: Dictionary | undefined;

/** The dictionaries under libs/ocr/data, indexed once per process. */
export function defaultDictionary(): Dictionary {
  if (cached) return cached;
  const commonWords = new Set(commonWordData.words.map((w) => matchWords(w).join(' ')));
  const all = buildEntries();
  const proseLike = (e: DictEntry) => (e.category === 'region' || e.category === 'country') && e.words.every((w) => commonWords.has(w));
  const entries = all.filter((e) => !proseLike(e));
  const wholeLine = new Map<string, DictEntry[]>();
  for (const e of all) if (proseLike(e) && e.words.length >= 2) pushTo(wholeLine, e.key, e);
  const byKey = new Map<string, DictEntry[]>();
  const byWordCount = new Map<number, DictEntry[]>();
  let maxWords = 0;
  for (const e of entries) {
    pushTo(byKey, e.key, e);
    pushTo(byWordCount, e.words.length, e);
    maxWords = Math.max(maxWords, e.words.length);
  }
  cached = {
    entries,
    byKey,
    byWordCount,
    commonWords,
    wholeLine,
    maxWords,
    versions: {
      grapeVarieties: grapeData.version,
      wineRegions: regionData.version,
      countries: countryData.version,
      wineColors: colorData.version,
      labelTerms: termData.version,
      commonWords: commonWordData.version,
    },
  };
  return cached;
}

/**
 * The grape a variety name stands for (its canonical name: "Shiraz" → "Syrah"), or the name itself when the
 * dictionary does not know it. Labels are read as printed; search compares grapes through this.
 */
export function canonicalVariety(name: string, dict: Dictionary = defaultDictionary()): string {
  const entry = dict.byKey.get(matchWords(name).join(' '))?.find((e) => e.category === 'variety');
  return entry?.canonical ?? name;
}

/** Two variety names for one grape: synonyms ("Syrah", "Shiraz") and spellings with or without accents agree. */
export function sameVariety(a: string, b: string, dict: Dictionary = defaultDictionary()): boolean {
  return matchWords(canonicalVariety(a, dict)).join(' ') === matchWords(canonicalVariety(b, dict)).join(' ');
}
