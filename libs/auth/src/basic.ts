export interface BasicCredentials {
  username: string;
  password: string;
}

/** Reads `Authorization: Basic base64(user:password)`; the password may itself contain colons. */
export function parseBasicAuth(header: string | undefined): BasicCredentials | null {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export interface AccountSeed {
  account: string;
  username: string;
  password: string;
}

/** Account names become URL path segments, so they are restricted to URL-safe characters. */
export const ACCOUNT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Parses `ACCOUNTS="account:user:password[,account:user:password...]"`; passwords may contain colons, not commas. */
export function parseAccountsSpec(spec: string | undefined): AccountSeed[] {
  if (!spec || spec.trim() === '') return [];
  return spec.split(',').map((entry) => {
    const trimmed = entry.trim();
    const first = trimmed.indexOf(':');
    const second = first < 0 ? -1 : trimmed.indexOf(':', first + 1);
    if (first <= 0 || second <= first + 1 || second === trimmed.length - 1) {
      throw new Error(`ACCOUNTS: "${trimmed}" is not of the form account:user:password.`);
    }
    const account = trimmed.slice(0, first);
    if (!ACCOUNT_NAME_PATTERN.test(account)) {
      throw new Error(`ACCOUNTS: "${account}" is not a valid account name (letters, digits, dot, dash, underscore).`);
    }
    return { account, username: trimmed.slice(first + 1, second), password: trimmed.slice(second + 1) };
  });
}
