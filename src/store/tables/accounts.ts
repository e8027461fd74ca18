/**
 * Accounts, their API keys and the dashboard's sessions (src/accounts, src/sessions).
 */

export interface AccountsTable {
  id: string;
  email: string;
  plan: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** SHA-256 of the key; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, so an operator can tell keys apart. */
  prefix: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
}

/** Sessions of the web dashboard: the cookie token is stored only as its SHA-256. */
export interface WebSessionsTable {
  token_hash: string;
  account_id: string;
  /** SHA-256 of the API key the session was opened with (api_keys.key_hash). */
  key_hash: string;
  /** The session's anti-CSRF token, sent back by the dashboard in a header on every write. */
  csrf_token: string;
  created_at: number;
  expires_at: number;
}
