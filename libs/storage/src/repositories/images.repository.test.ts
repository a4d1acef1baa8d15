import { describe, expect, it } from 'vitest';
import { AccountRepository } from './accounts.repository';
import { ImageRepository } from './images.repository';
import { TEST_DATABASES, unavailable, useMigratedDatabase } from './test-databases';

describe.each(TEST_DATABASES)('ImageRepository.blobKeysPage (%s)', (label, url) => {
  const database = useMigratedDatabase(label, url);

  it.skipIf(unavailable(label, url))('pages through one collection\'s blob keys in filepath order, and no other collection\'s', async () => {
    const db = database();
    const accounts = new AccountRepository(db);
    const [acme, other] = [await accounts.ensure('acme'), await accounts.ensure('other')];
    const insert = (accountId: number, service: string, filepath: string) =>
      db.query(
        `INSERT INTO images (account_id, service, filepath, format, width, height, norm_width, norm_height, blob_key, norm_blob_key,
                             fingerprint_health, searchable) VALUES ($1, $2, $3, 'jpeg', 8, 8, 8, 8, $4, $5, 1, true)`,
        [accountId, service, filepath, `${service}/${filepath}/original`, `${service}/${filepath}/normalized`],
      );
    // Inserted out of order, and next to rows of another service and another account.
    for (const filepath of ['c.jpg', 'a.jpg', 'e.jpg', 'b.jpg', 'd.jpg']) await insert(acme.id, 'mobile', filepath);
    await insert(acme.id, 'color', 'a.jpg');
    await insert(other.id, 'mobile', 'z.jpg');

    const images = new ImageRepository(db);
    const ref = { accountId: acme.id, service: 'mobile' };
    const pages = [];
    for (let after: string | null = null; ; ) {
      const page = await images.blobKeysPage(ref, after, 2);
      pages.push(page);
      if (page.lastPath === null) break;
      after = page.lastPath;
    }
    expect(pages.map((p) => p.lastPath)).toEqual(['b.jpg', 'd.jpg', 'e.jpg', null]);
    expect(pages.flatMap((p) => p.keys)).toEqual(['a', 'b', 'c', 'd', 'e'].flatMap((f) => [`mobile/${f}.jpg/original`, `mobile/${f}.jpg/normalized`]));
  });
});
