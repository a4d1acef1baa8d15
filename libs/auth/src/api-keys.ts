import { randomBytes } from 'node:crypto';
import { ACCOUNT_NAME_PATTERN } from './basic';

export interface ApiKeySeed {
  /** Account the key belongs to; the public key itself when API_KEYS gives none. */
  account: string;
  publicKey: string;
  privateKey: string;
  /** Searches of the block created when the account has none yet. */
  searches: number;
}

/** Characters a key may hold: they travel unescaped in query strings and the signed text. */
export const API_KEY_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Parses `API_KEYS="public:private:searches[,…]"` (the key's account is named after its public key) or the longer
 * `account:public:private:searches` form.
 */
export function parseApiKeysSpec(spec: string | undefined): ApiKeySeed[] {
  if (!spec || spec.trim() === '') return [];
  return spec.split(',').map((entry) => {
    const parts = entry.trim().split(':');
    if (parts.length !== 3 && parts.length !== 4) {
      throw new Error(`API_KEYS: "${entry.trim()}" is not of the form public:private:searches (or account:public:private:searches).`);
    }
    const [account, publicKey, privateKey, searches] = parts.length === 4 ? parts : [parts[0], ...parts];
    if (!API_KEY_PATTERN.test(publicKey) || !API_KEY_PATTERN.test(privateKey)) {
      throw new Error(`API_KEYS: keys may hold letters, digits, dot, dash and underscore only ("${publicKey}").`);
    }
    if (!ACCOUNT_NAME_PATTERN.test(account)) throw new Error(`API_KEYS: "${account}" is not a valid account name.`);
    if (!/^\d+$/.test(searches)) throw new Error(`API_KEYS: "${searches}" is not a number of searches.`);
    return { account, publicKey, privateKey, searches: Number(searches) };
  });
}

/** A fresh random key: 24 bytes, URL-safe (32 characters). */
export function generateApiKey(): string {
  return randomBytes(24).toString('base64url');
}
