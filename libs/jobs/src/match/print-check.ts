import { applyHomography, type GrayImage, type MatchResult } from '@loupe/fingerprint';
import { readAlignedLines, readingsDisagree, type LazyOcrPool } from '@loupe/ocr';

/**
 * Whether the collection image's print reads otherwise in the query where a fit aligns them: two designs of one template
 * (two badges, two labels of a range) that differ only by their name (`readingsDisagree`).
 */
export interface PrintCheck {
  /** `collectionScale`: the collection image's pixels relative to the size the fit refers to (a stored copy's scale). */
  differs(query: GrayImage, collection: GrayImage, fit: MatchResult, collectionScale?: number): Promise<boolean>;
}

/** Reads nothing: every fit stands (a service built without OCR, unit tests of other steps). */
export const NO_PRINT_CHECK: PrintCheck = { differs: async () => false };

/** The print read by tesseract (`readAlignedLines`) on the process's shared OCR pool, started by the first check. */
export class OcrPrintCheck implements PrintCheck {
  constructor(private readonly ocr: LazyOcrPool) {}

  async differs(query: GrayImage, collection: GrayImage, fit: MatchResult, collectionScale = 1): Promise<boolean> {
    const pool = await this.ocr.get();
    const toQuery = (x: number, y: number) => applyHomography(fit.transform, x / collectionScale, y / collectionScale);
    const readings = await readAlignedLines((grey, bands) => pool.readBands(grey, bands), query, collection, toQuery);
    return readingsDisagree(readings);
  }
}

/**
 * One search's print checks, one per collection image: the first fit to reach the check decides for the whole search,
 * and a chance that finds the image again (another pixel chance, the upright copy's, after a refusal in feature
 * verification) is told that verdict instead of reading again. Every fit the search finds aligns the same two images
 * nearly alike, so they show the same print: in the matching benchmark (1k and 10k, 817 searches) 86 images were
 * checked again in one search, by two to four fits (105 more readings of 518, 4-250 ms each), and none was read otherwise.
 */
export class PrintVerdicts {
  private readonly byImage = new Map<number, Promise<boolean>>();

  /** The image's verdict in this search: `check`'s when it is the first asked, the first one's otherwise. */
  decide(imagePk: number, check: () => Promise<boolean>): Promise<boolean> {
    let verdict = this.byImage.get(imagePk);
    if (!verdict) {
      verdict = check();
      this.byImage.set(imagePk, verdict);
    }
    return verdict;
  }
}
