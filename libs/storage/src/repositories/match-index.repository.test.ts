import { describe, expect, it } from 'vitest';
import { AccountRepository } from './accounts.repository';
import { decodeWords, encodeWords, MatchIndexRepository } from './match-index.repository';
import { TEST_DATABASES, unavailable, useMigratedDatabase } from './test-databases';

/** Stored buffers are not guaranteed to be aligned: read them at an odd offset. */
const atOddOffset = (buf: Buffer): Buffer => Buffer.concat([Buffer.from([0]), buf]).subarray(1);

describe('stored visual words', () => {
  const words = Uint32Array.from([9999, 0, 17, 17, 65535, 4242]);

  it('take two bytes a word when every word fits, keeping order and repeats', () => {
    const stored = encodeWords(words);
    expect(stored.length).toBe(1 + 2 * words.length);
    expect(Array.from(decodeWords(atOddOffset(stored)))).toEqual(Array.from(words));
  });

  it('keep four bytes a word for a vocabulary past 65,536 words', () => {
    const wide = Uint32Array.from([70000, 3, 1 << 30]);
    const stored = encodeWords(wide);
    expect(stored.length).toBe(4 * wide.length);
    expect(Array.from(decodeWords(atOddOffset(stored)))).toEqual(Array.from(wide));
  });

  it('still read rows written as uint32 before the narrow layout', () => {
    const written = Buffer.from(Uint32Array.from([9999, 0, 17, 17]).buffer);
    expect(Array.from(decodeWords(atOddOffset(written)))).toEqual([9999, 0, 17, 17]);
    expect(Array.from(decodeWords(Buffer.alloc(0)))).toEqual([]);
    expect(Array.from(decodeWords(encodeWords(new Uint32Array(0))))).toEqual([]);
  });

  it('refuse bytes in neither layout', () => {
    expect(() => decodeWords(Buffer.from([7, 1, 0]))).toThrow(/Not stored visual words/);
    expect(() => decodeWords(Buffer.from([1, 0, 0, 0, 2, 0]))).toThrow(/Not stored visual words/);
  });

  describe.each(TEST_DATABASES)('in the database (%s)', (label, url) => {
    const database = useMigratedDatabase(label, url);

    it.skipIf(unavailable(label, url))('come back from image_words as they went in, next to rows of the old layout', async () => {
      const db = database();
      const account = await new AccountRepository(db).ensure('words');
      const ref = { accountId: account.id, service: 'search' };
      const pks: number[] = [];
      for (const path of ['narrow.jpg', 'old.jpg']) {
        const { rows } = await db.query<{ id: number }>(
          `INSERT INTO images (account_id, service, filepath, format, width, height, norm_width, norm_height, blob_key, norm_blob_key,
                               fingerprint_health, searchable) VALUES ($1, 'search', $2, 'jpeg', 8, 8, 8, 8, 'b', 'n', 1, true) RETURNING id`,
          [account.id, path],
        );
        pks.push(rows[0].id);
      }
      const repository = new MatchIndexRepository(db);
      const shares = Uint8Array.from({ length: 64 }, (_, bin) => (bin * 37) % 256);
      await repository.saveWords(pks[0], 'v1', words, db, { colourSet: 0b1011n, colourShares: shares });
      await db.query(`INSERT INTO image_words (image_pk, vocabulary, words) VALUES ($1, 'v1', $2)`, [pks[1], Buffer.from(Uint32Array.from([5, 6, 5]).buffer)]);
      const stored = await repository.indexedImages(ref, 'v1');
      const byPath = new Map(stored.map((row) => [row.filepath, Array.from(decodeWords(row.words))]));
      expect(byPath.get('narrow.jpg')).toEqual(Array.from(words));
      expect(byPath.get('old.jpg')).toEqual([5, 6, 5]);
      // Colour shares only for the row indexed with them.
      const storedShares = await repository.colourSharesOf(pks);
      expect([...storedShares.keys()]).toEqual([pks[0]]);
      expect(Array.from(storedShares.get(pks[0])!)).toEqual(Array.from(shares));
    });
  });
});
