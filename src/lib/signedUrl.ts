/**
 * Signed download URLs: `<publicUrl><path>?expires=<unix seconds>&sig=<hex>`, where sig =
 * HMAC-SHA256(secret, path + "\n" + expires). The URL works without an API key (it is
 * handed to a browser or a mail), so the signature is the authorisation: it binds the
 * path and the expiry, and any change to either makes it invalid.
 *
 * @example
 * const signer = new UrlSigner(loadSigningSecret(config), config.publicUrl);
 * const url = signer.sign(`/downloads/${jobId}`, unixSeconds(expiresMs));
 * signer.verify(url, clock.now()); // { status: 'ok', path, expiresAt }
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type SignedUrlCheck =
  { status: 'ok'; path: string; expiresAt: number } | { status: 'expired'; path: string; expiresAt: number } | { status: 'bad-signature' };

export const SIGNING_SECRET_FILE = 'signing-secret';

/**
 * The signing secret: `signingSecret` from the configuration (QUARRY_SIGNING_SECRET) when
 * set; otherwise a random one generated on first use into `<dataDir>/signing-secret`
 * (mode 0600), so that URLs handed out before a restart keep working after it, and the
 * API and a separate worker process sign with the same key.
 */
export function loadSigningSecret(config: { signingSecret: string | null; dataDir: string }): string {
  if (config.signingSecret) return config.signingSecret;
  const file = path.join(config.dataDir, SIGNING_SECRET_FILE);
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    // 'wx' fails if the file exists: when two processes start at once, one secret wins
    // and the other process reads it below.
    fs.writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds no usable signing secret; delete it to generate a new one`);
  return secret;
}

export class UrlSigner {
  private readonly key: Buffer;
  private readonly base: string;

  constructor(secret: string, publicUrl: string) {
    this.key = Buffer.from(secret, 'utf8');
    this.base = publicUrl.replace(/\/+$/, '');
  }

  /** An absolute URL for `path` (starting with `/`) valid until `expiresAt` (Unix seconds). */
  sign(urlPath: string, expiresAt: number): string {
    if (!urlPath.startsWith('/')) throw new Error(`path must start with "/": ${urlPath}`);
    const expires = Math.floor(expiresAt);
    return `${this.base}${urlPath}?expires=${expires}&sig=${this.signature(urlPath, String(expires))}`;
  }

  /**
   * Checks a URL, absolute or as a request line's path (`/downloads/…?expires=…&sig=…`).
   * The signature is checked before the expiry, so a URL with an altered expiry is a bad
   * signature, never "expired". `nowMs` comes from the injected clock.
   */
  verify(url: string, nowMs: number): SignedUrlCheck {
    let parsed: URL;
    try {
      parsed = new URL(url, 'http://signed.invalid');
    } catch {
      return { status: 'bad-signature' };
    }
    const expires = parsed.searchParams.get('expires');
    const sig = parsed.searchParams.get('sig');
    if (expires === null || sig === null || !/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(sig)) {
      return { status: 'bad-signature' };
    }
    const urlPath = parsed.pathname;
    const expected = Buffer.from(this.signature(urlPath, expires), 'hex');
    const given = Buffer.from(sig, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { status: 'bad-signature' };
    const expiresAt = Number(expires);
    if (nowMs >= expiresAt * 1000) return { status: 'expired', path: urlPath, expiresAt };
    return { status: 'ok', path: urlPath, expiresAt };
  }

  private signature(urlPath: string, expires: string): string {
    return createHmac('sha256', this.key).update(`${urlPath}\n${expires}`).digest('hex');
  }
}
