import { API_KEY_PATTERN, generateApiKey } from '@loupe/auth';
import { computeThreads, JobKind, createProcessors, FingerprintPayload, FingerprintResult, MIN_ORPHAN_AGE_HOURS, OrphanBlobSweeper, parseManifest, PublicImportService, runImport } from '@loupe/jobs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { AppConfig, ensureAccountUser, Infrastructure, loadConfig, openInfrastructure } from '@loupe/runtime';
import { BULK_COMMANDS, BULK_USAGE, runBulkCommand } from './bulk-commands';


const USAGE = `Usage: npm run cli -- <command>

  account add <account> <user> <password>   create an account (if new) with a user, or set that user's password
  account list                              accounts with their user and image counts
  account remove <account>                  delete an account, its users, images and blobs
  user add <account> <user> <password>      same as "account add" for an existing account
  user remove <account> <user>              remove one user
  user list <account>                       users of an account
  reindex <account> <service> [filepath…]   recompute the fingerprints and search words of a collection (or of the given paths)
  blobs sweep                               delete collection blobs that no image points to (left by processes killed
                                            mid-add or mid-delete) once 25 h old; workers also do it every ORPHAN_SWEEP_HOURS
${BULK_USAGE}

  key add <account> [public private]        add a public index API key pair to an account (random keys if not given)
  key list [account]                        API keys (public halves) and their accounts
  key remove <public>                       revoke an API key
  block add <account> <searches> [days] [start]   add a search block (default 365 days from now; start YYYY-MM-DD)
  block list <account>                      search blocks of an account
  index import <manifest> [concurrency]     add the images of a manifest (JSON lines or CSV) to the public index, on
                                            every core (concurrency: entries at once, default 2 per compute thread);
                                            resumable and idempotent: run it again to continue or to check

The database and blob store are chosen by the same variables as the gateway (DATABASE_URL, S3_ENDPOINT, DATA_DIR).
Stop an embedded gateway first: PGlite allows one process per data folder.`;

class UsageError extends Error {}

function need(args: string[], count: number): string[] {
  if (args.length < count) throw new UsageError(`Missing arguments.\n\n${USAGE}`);
  return args;
}

async function requireAccount(infra: Infrastructure, name: string) {
  const account = await infra.accounts.find(name);
  if (!account) throw new Error(`There is no account named "${name}".`);
  return account;
}

async function run(argv: string[], infra: Infrastructure, config: AppConfig): Promise<void> {
  const [group, action, ...args] = argv;
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  switch (command) {
    case 'account add':
    case 'user add': {
      const [account, user, password] = need(args, 3);
      await ensureAccountUser(infra.accounts, { account, username: user, password });
      console.log(`User "${user}" can now use account "${account}".`);
      return;
    }
    case 'account list': {
      const rows = await infra.accounts.list();
      if (rows.length === 0) console.log('No accounts.');
      for (const row of rows) console.log(`${row.name}\t${row.users} user(s)\t${row.images} image(s)`);
      return;
    }
    case 'account remove': {
      const [account] = need(args, 1);
      const blobKeys = await infra.accounts.remove(account);
      if (blobKeys === null) throw new Error(`There is no account named "${account}".`);
      await Promise.all(blobKeys.map((key) => infra.blobs.delete(key)));
      console.log(`Account "${account}" removed with ${blobKeys.length / 2} image(s).`);
      return;
    }
    case 'user remove': {
      const [accountName, user] = need(args, 2);
      const account = await requireAccount(infra, accountName);
      if (!(await infra.accounts.removeUser(account.id, user))) throw new Error(`Account "${accountName}" has no user "${user}".`);
      console.log(`User "${user}" removed from "${accountName}".`);
      return;
    }
    case 'user list': {
      const [accountName] = need(args, 1);
      const account = await requireAccount(infra, accountName);
      for (const user of await infra.accounts.listUsers(account.id)) console.log(user);
      return;
    }
    case 'key add': {
      const [accountName, given, secret] = need(args, 1);
      const publicKey = given ?? generateApiKey();
      const privateKey = secret ?? generateApiKey();
      if (!API_KEY_PATTERN.test(publicKey) || !API_KEY_PATTERN.test(privateKey)) throw new Error('Keys may hold letters, digits, dot, dash and underscore (at most 128).');
      const account = await infra.accounts.ensure(accountName);
      await infra.publicApi.upsertKey(account.id, publicKey, privateKey);
      console.log(`API key for "${accountName}":\n  public:  ${publicKey}\n  private: ${privateKey}`);
      return;
    }
    case 'key list': {
      const account = args[0] ? await requireAccount(infra, args[0]) : undefined;
      const keys = await infra.publicApi.listKeys(account?.id);
      if (keys.length === 0) console.log('No API keys.');
      for (const k of keys) console.log(`${k.public_key}\t${k.account}\t${k.created_at.toISOString()}`);
      return;
    }
    case 'key remove': {
      const [publicKey] = need(args, 1);
      if (!(await infra.publicApi.removeKey(publicKey))) throw new Error(`There is no API key "${publicKey}".`);
      console.log(`API key "${publicKey}" revoked.`);
      return;
    }
    case 'block add': {
      const [accountName, searches, days = '365', start] = need(args, 2);
      const account = await requireAccount(infra, accountName);
      if (!/^\d+$/.test(searches) || !/^\d+$/.test(days) || Number(days) === 0) throw new UsageError('searches and days must be positive whole numbers.');
      const startDate = start ? new Date(`${start}T00:00:00Z`) : new Date();
      if (Number.isNaN(startDate.getTime())) throw new UsageError(`"${start}" is not a date (YYYY-MM-DD).`);
      const block = await infra.publicApi.addBlock(account.id, Number(searches), startDate, new Date(startDate.getTime() + Number(days) * 86_400_000));
      console.log(`Block of ${block.searches} searches for "${accountName}", ${block.start_date.toISOString()} to ${block.expire_date.toISOString()}.`);
      return;
    }
    case 'block list': {
      const [accountName] = need(args, 1);
      const account = await requireAccount(infra, accountName);
      for (const b of await infra.publicApi.listBlocks(account.id)) {
        console.log(`${b.remaining}/${b.searches} left\t${b.start_date.toISOString()} to ${b.expire_date.toISOString()}`);
      }
      return;
    }
    case 'blobs sweep': {
      const sweeper = new OrphanBlobSweeper(infra.blobs, infra.accounts, infra.images, infra.publicApi, { everyHours: config.orphanSweepHours });
      const report = await sweeper.sweepOnce(Date.now(), true);
      console.log(`Deleted ${report.deleted} collection blob(s) that no image points to; ${report.referenced} in use; ${report.young} younger than ${MIN_ORPHAN_AGE_HOURS} h left alone (an add may still commit them).`);
      return;
    }
    case 'index import': {
      const [manifest, concurrency] = need(args, 1);
      const entries = parseManifest(await readFile(manifest, 'utf8'), path.dirname(path.resolve(manifest)));
      // Images are prepared on one compute thread per core; twice as many entries in flight keep the threads busy
      // while others read, look up and commit.
      const compute = computeThreads(config.computeThreads);
      const service = new PublicImportService(infra.publicIndex, infra.blobs, undefined, compute.run);
      let lastPrint = 0;
      const result = await runImport(service, entries, {
        concurrency: Number(concurrency) || 2 * Math.max(1, compute.parallelism),
        onFailure: (entry, message) => console.error(`line ${entry.line}: ${message}`),
        onProgress: (p) => {
          if (Date.now() - lastPrint < 1000 && p.processed < p.total) return;
          lastPrint = Date.now();
          console.log(`${p.processed}/${p.total}  added ${p.counts.added}  backlinks ${p.counts.backlink}  skipped ${p.counts.skipped}  failed ${p.counts.failed}  (${p.rate.toFixed(1)} images/s)`);
        },
      }).finally(() => compute.close());
      console.log(`Done: ${result.counts.added} added, ${result.counts.backlink} backlink(s) to known images, ${result.counts.skipped} already imported, ${result.counts.failed} failed. The index holds ${await infra.publicIndex.imageCount()} images.`);
      return;
    }
    default:
      if (BULK_COMMANDS.has(group)) {
        process.exitCode = await runBulkCommand(group, [action, ...args].filter((a) => a !== undefined), infra, config.computeThreads);
        return;
      }
      if (group === 'reindex') {
        const [accountName, service, ...paths] = need([action, ...args].filter((a) => a !== undefined), 2);
        const account = await requireAccount(infra, accountName);
        const processors = createProcessors(infra);
        const payload: FingerprintPayload = { account_id: account.id, service, filepaths: paths.length > 0 ? paths : undefined };
        const result = (await processors[JobKind.Fingerprint](payload, { kind: JobKind.Fingerprint, group: accountName, attempt: 1 })) as FingerprintResult;
        console.log(`Re-fingerprinted ${result.updated} image(s).`);
        for (const failure of result.failed) console.error(failure);
        return;
      }
      throw new UsageError(group ? `Unknown command "${command}".\n\n${USAGE}` : USAGE);
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    console.log(USAGE);
    return;
  }
  const config = loadConfig();
  const infra = await openInfrastructure(config);
  try {
    await run(argv, infra, config);
  } finally {
    await infra.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(error instanceof UsageError ? 2 : 1);
});
