/**
 * Pair-level probe of the hard-copy families (issue 15), without a collection: each edited family image is verified
 * (`verifyMatch`, as a search's verification does) against its own original and against every other image of the
 * same family and split, then given the dense second chance as a compare would (`confirmDense`), so a change to
 * matching shows its hits and its false fits in a minute.
 *
 *   npx tsx tools/bench/match/hard-pairs.ts [--split tune|holdout] [--images N] [--family patterns] [--no-dense]
 */
import { confirmDense, confirmSharedDetail, extractFeatures, verifyMatch, type ImageEvidence, type MatchResult } from '@loupe/fingerprint';
import { grayImageOf, normalizeImage } from '@loupe/imaging';
import { FAMILY_EDITS, mulberry32 } from './edits';
import { FAMILIES, familyImages, type FamilyName, type Split } from './families';
import { flag } from '../report';

async function features(data: Buffer): Promise<ImageEvidence> {
  const rgb = await normalizeImage(data, { preferredSide: 600 });
  return { rgb, features: await extractFeatures(grayImageOf(rgb)) };
}

/** What a compare answers: feature verification (a concentrated fit confirmed by pixels), else the dense second chance. */
async function match(q: ImageEvidence, t: ImageEvidence): Promise<MatchResult | null> {
  const verified = await verifyMatch(q.features, t.features);
  return (verified && (await confirmSharedDetail(q.rgb, t.rgb, verified))) ?? (DENSE ? await confirmDense(q, t) : null);
}
const DENSE = !process.argv.includes('--no-dense');

async function main(): Promise<void> {
  const split = (flag('split') ?? 'tune') as Split;
  const count = Number(flag('images') ?? 6);
  const families = flag('family') ? [flag('family') as FamilyName] : FAMILIES;
  for (const family of families) {
    const images = await familyImages(family, split, count);
    const originals = await Promise.all(images.map((i) => features(i.data)));
    for (const [ei, edit] of FAMILY_EDITS.entries()) {
      const rnd = mulberry32(ei + 17);
      let hits = 0, wrong = 0;
      const notes: string[] = [];
      for (const [k, img] of images.entries()) {
        const q = await features((await edit.apply(img.data, img.width, img.height, rnd)).data);
        const own = await match(q, originals[k]);
        if (own) hits++;
        else notes.push(`${img.generator}-${img.seed}:miss(${q.features.count}pts)`);
        if (own && own.score < 33) notes.push(`${img.generator}-${img.seed}:dense(${own.score})`);
        for (const [j, other] of originals.entries()) {
          if (j === k) continue;
          const m = await match(q, other);
          if (m) {
            wrong++;
            notes.push(`${img.generator}-${img.seed}→${images[j].generator}-${images[j].seed}:${m.score}`);
          }
        }
      }
      console.log(`${family} ${edit.name}: ${hits}/${images.length} own, ${wrong} false fits ${notes.join(' ')}`);
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
