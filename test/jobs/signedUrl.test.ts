import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import fc from 'fast-check';
import { loadSigningSecret, SIGNING_SECRET_FILE, UrlSigner } from '../../src/lib/signedUrl.js';

const NOW = Date.UTC(2026, 10, 22, 12);
const EXPIRES = NOW / 1000 + 3600;
const JOB = '0123456789abcdef01234567';

describe('signed URLs', () => {
  const signer = new UrlSigner('s'.repeat(64), 'https://quarry.example/');

  it('signs <publicUrl>/downloads/<jobId>?expires=<unix>&sig=<hex> and verifies it', async () => {
    const url = signer.sign(`/downloads/${JOB}`, EXPIRES);
    assert.match(url, new RegExp(`^https://quarry\\.example/downloads/${JOB}\\?expires=${EXPIRES}&sig=[0-9a-f]{64}$`));
    assert.deepEqual(signer.verify(url, NOW), { status: 'ok', path: `/downloads/${JOB}`, expiresAt: EXPIRES });
    // As the request line carries it: path and query only.
    assert.equal(signer.verify(url.replace('https://quarry.example', ''), NOW).status, 'ok');
    assert.equal(signer.sign(`/downloads/${JOB}`, EXPIRES), url, 'deterministic');
  });

  it('is expired from the expiry second on', async () => {
    const url = signer.sign(`/downloads/${JOB}`, EXPIRES);
    assert.equal(signer.verify(url, EXPIRES * 1000 - 1).status, 'ok');
    assert.equal(signer.verify(url, EXPIRES * 1000).status, 'expired');
  });

  it('refuses a tampered path, expiry or signature, and a missing one', async () => {
    const url = signer.sign(`/downloads/${JOB}`, EXPIRES);
    const sig = new URL(url).searchParams.get('sig')!;
    const otherJob = 'f'.repeat(24);
    const tampered = [
      url.replace(JOB, otherJob),
      url.replace(`expires=${EXPIRES}`, `expires=${EXPIRES + 86_400 * 365}`),
      url.replace(`expires=${EXPIRES}`, `expires=${EXPIRES - 1}`),
      url.replace(sig, sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0')),
      url.replace(sig, sig.slice(0, 32)),
      url.replace(sig, sig.toUpperCase()),
      url.replace(`&sig=${sig}`, ''),
      url.replace(`expires=${EXPIRES}&`, ''),
      url.replace(`/downloads/${JOB}`, `/downloads/${JOB}/`),
      `${url}&expires=${EXPIRES + 10}`.replace(`expires=${EXPIRES}&`, ''),
      new UrlSigner('t'.repeat(64), 'https://quarry.example').sign(`/downloads/${JOB}`, EXPIRES),
    ];
    for (const bad of tampered) assert.equal(signer.verify(bad, NOW).status, 'bad-signature', bad);
    // A tampered expiry is a bad signature, never "expired", even once the real one has passed.
    assert.equal(signer.verify(url.replace(`expires=${EXPIRES}`, `expires=${EXPIRES - 7200}`), NOW).status, 'bad-signature');
  });

  it('refuses every single-character change of the signature (property)', async () => {
    const url = signer.sign(`/downloads/${JOB}`, EXPIRES);
    const sig = new URL(url).searchParams.get('sig')!;
    fc.assert(
      fc.property(fc.nat(63), fc.constantFrom(...'0123456789abcdef'), (index, digit) => {
        fc.pre(sig[index] !== digit);
        const forged = url.replace(sig, sig.slice(0, index) + digit + sig.slice(index + 1));
        return signer.verify(forged, NOW).status === 'bad-signature';
      }),
    );
  });

  describe('secret', () => {
    let dataDir: string;
    beforeEach(() => {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-secret-'));
    });
    afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

    it('uses the configured secret when given', async () => {
      assert.equal(loadSigningSecret({ signingSecret: 'configured-secret', dataDir }), 'configured-secret');
      assert.equal(fs.existsSync(path.join(dataDir, SIGNING_SECRET_FILE)), false);
    });

    it('otherwise generates one into <dataDir>/signing-secret (0600) that survives restarts', async () => {
      const first = loadSigningSecret({ signingSecret: null, dataDir });
      const file = path.join(dataDir, SIGNING_SECRET_FILE);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.match(first, /^[0-9a-f]{64}$/);
      assert.equal(loadSigningSecret({ signingSecret: null, dataDir }), first);
      // A URL signed before the restart verifies after it.
      const url = new UrlSigner(first, 'http://q').sign('/downloads/x', EXPIRES);
      assert.equal(new UrlSigner(loadSigningSecret({ signingSecret: null, dataDir }), 'http://q').verify(url, NOW).status, 'ok');
    });
  });
});
