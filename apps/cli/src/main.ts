import { JobKind, createProcessors, FingerprintPayload, FingerprintResult } from '@loupe/jobs';
import { ensureAccountUser, Infrastructure, loadConfig, openInfrastructure } from '@loupe/runtime';


const USAGE = `Usage: npm run cli -- <command>

  account add <account> <user> <password>   create an account (if new) with a user, or set that user's password
  account list                              accounts with their user and image counts
  account remove <account>                  delete an account, its users, images and blobs
  user add <account> <user> <password>      same as "account add" for an existing account
  user remove <account> <user>              remove one user
  user list <account>                       users of an account
  reindex <account> <service> [filepath…]   recompute the fingerprints of a collection (or of the given paths)

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

async function run(argv: string[], infra: Infrastructure): Promise<void> {
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
    default:
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
  const infra = await openInfrastructure(loadConfig());
  try {
    await run(argv, infra);
  } finally {
    await infra.close();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(error instanceof UsageError ? 2 : 1);
});
