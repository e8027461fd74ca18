/** The configuration: every QUARRY_* variable, its default and its validation. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config.js';

function rejects(env: Record<string, string>, message: RegExp) {
  assert.throws(
    () => loadConfig(env),
    (err: unknown) => err instanceof ConfigError && message.test(err.message),
    JSON.stringify(env),
  );
}

describe('loadConfig', () => {
  test('defaults with an empty environment', () => {
    const c = loadConfig({});
    assert.equal(c.port, 8080);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.dataDir, path.resolve('./data'));
    assert.equal(c.gatewayRps, 4);
    assert.equal(c.trustProxy, false);
    assert.equal(c.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(c.plansFile, null);
    assert.equal(c.worldSize, 'small');
    assert.equal(c.worldSeed, 1);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.smtpUrl, null);
    assert.equal(c.bodyLimit, 2 * 1024 * 1024);
    assert.equal(c.signingSecret, null);
    assert.equal(c.freeWritesPerMinute, 120);
    assert.equal(c.requestTimeoutMs, 30_000);
    assert.equal(c.sessionTtlHours, 12);
    assert.deepEqual(c.postgresPool, { max: 10, statementTimeoutMs: 30_000, idleInTransactionMs: 15_000, waitMs: 10_000 });
    assert.equal(c.drainTimeoutMs, 20_000);
  });

  test('PostgreSQL pool deadlines and the drain deadline', () => {
    const c = loadConfig({
      QUARRY_PG_POOL_SIZE: '4',
      QUARRY_PG_STATEMENT_TIMEOUT_MS: '0',
      QUARRY_PG_IDLE_IN_TRANSACTION_MS: '5000',
      QUARRY_PG_POOL_WAIT_MS: '250',
      QUARRY_DRAIN_TIMEOUT_MS: '5000',
    });
    assert.deepEqual(c.postgresPool, { max: 4, statementTimeoutMs: 0, idleInTransactionMs: 5_000, waitMs: 250 });
    assert.equal(c.drainTimeoutMs, 5_000);
    // Waiting for a connection is always bounded: 0 would be pg's "for ever".
    rejects({ QUARRY_PG_POOL_WAIT_MS: '0' }, /^QUARRY_PG_POOL_WAIT_MS must be between 100 and 600000, got 0$/);
    rejects({ QUARRY_PG_POOL_SIZE: '0' }, /QUARRY_PG_POOL_SIZE must be between 1 and 1000/);
  });

  test('the metrics token: none by default, at least 16 printable characters', () => {
    assert.equal(loadConfig({}).metricsToken, null);
    assert.equal(loadConfig({ QUARRY_METRICS_TOKEN: 'abcdefghijklmnop' }).metricsToken, 'abcdefghijklmnop');
    rejects({ QUARRY_METRICS_TOKEN: 'short' }, /^QUARRY_METRICS_TOKEN must be at least 16 printable characters without spaces$/);
    rejects({ QUARRY_METRICS_TOKEN: 'has a space in it ok' }, /QUARRY_METRICS_TOKEN must be/);
  });

  test('empty and blank values mean the default', () => {
    const c = loadConfig({ QUARRY_PORT: '', QUARRY_TRUST_PROXY: '', QUARRY_HOST: '   ', QUARRY_WORLD_SIZE: ' ', QUARRY_PLANS_FILE: '' });
    assert.equal(c.port, 8080);
    assert.equal(c.trustProxy, false);
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.worldSize, 'small');
    assert.equal(c.plansFile, null);
  });

  test('every variable is read', () => {
    const c = loadConfig({
      QUARRY_PORT: '9000',
      QUARRY_HOST: '0.0.0.0',
      QUARRY_DATA_DIR: '/tmp/quarry-data',
      QUARRY_GATEWAY_RPS: '0',
      QUARRY_TRUST_PROXY: 'yes',
      QUARRY_PUBLIC_URL: 'https://seo.example.com/',
      QUARRY_PLANS_FILE: '/etc/quarry/plans.json',
      QUARRY_WORLD_SIZE: 'tiny',
      QUARRY_WORLD_SEED: '42',
      QUARRY_LOG_LEVEL: 'warn',
      QUARRY_SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      QUARRY_BODY_LIMIT: '4096',
      QUARRY_SIGNING_SECRET: 's3cret',
      QUARRY_METRICS_PORT: '9464',
    });
    assert.equal(c.port, 9000);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.dataDir, '/tmp/quarry-data');
    assert.equal(c.gatewayRps, 0);
    assert.equal(c.trustProxy, true);
    assert.equal(c.publicUrl, 'https://seo.example.com', 'trailing slashes dropped');
    assert.equal(c.plansFile, '/etc/quarry/plans.json');
    assert.equal(c.worldSize, 'tiny');
    assert.equal(c.worldSeed, 42);
    assert.equal(c.logLevel, 'warn');
    assert.equal(c.smtpUrl, 'smtps://user:pass@mail.example.com:465');
    assert.equal(c.bodyLimit, 4096);
    assert.equal(c.signingSecret, 's3cret');
    assert.equal(c.metricsPort, 9464);
    assert.equal(loadConfig({}).metricsPort, null, 'no metrics port unless asked');
  });

  test('the public URL follows host and port unless given; IPv6 hosts are bracketed', () => {
    assert.equal(loadConfig({ QUARRY_HOST: 'quarry.local', QUARRY_PORT: '81' }).publicUrl, 'http://quarry.local:81');
    assert.equal(loadConfig({ QUARRY_HOST: '::1', QUARRY_PORT: '81' }).publicUrl, 'http://[::1]:81');
  });

  test('ports: 0 (any free port) to 65535', () => {
    assert.equal(loadConfig({ QUARRY_PORT: '0' }).port, 0);
    assert.equal(loadConfig({ QUARRY_PORT: '65535' }).port, 65535);
    assert.equal(loadConfig({ QUARRY_PORT: ' 8081 ' }).port, 8081);
    rejects({ QUARRY_PORT: 'eighty' }, /^QUARRY_PORT must be an integer, got "eighty"$/);
    rejects({ QUARRY_PORT: '80.5' }, /QUARRY_PORT must be an integer/);
    rejects({ QUARRY_PORT: '1e3' }, /QUARRY_PORT must be an integer/);
    rejects({ QUARRY_PORT: '0x50' }, /QUARRY_PORT must be an integer/);
    rejects({ QUARRY_PORT: '65536' }, /^QUARRY_PORT must be between 0 and 65535, got 65536$/);
    rejects({ QUARRY_PORT: '-1' }, /QUARRY_PORT must be between 0 and 65535/);
  });

  test('booleans: true/false, 1/0, yes/no, on/off in any case; anything else is refused', () => {
    for (const v of ['true', 'TRUE', '1', 'yes', 'On']) assert.equal(loadConfig({ QUARRY_TRUST_PROXY: v }).trustProxy, true, v);
    for (const v of ['false', 'False', '0', 'no', 'OFF']) assert.equal(loadConfig({ QUARRY_TRUST_PROXY: v }).trustProxy, false, v);
    for (const v of ['maybe', 'y', '2', 'enabled']) rejects({ QUARRY_TRUST_PROXY: v }, /^QUARRY_TRUST_PROXY must be true or false/);
  });

  test('sizes: the world size is one of tiny, small, large; the body limit an integer in range', () => {
    for (const s of ['tiny', 'small', 'large']) assert.equal(loadConfig({ QUARRY_WORLD_SIZE: s }).worldSize, s);
    rejects({ QUARRY_WORLD_SIZE: 'huge' }, /^QUARRY_WORLD_SIZE must be one of tiny, small, large, none, got "huge"$/);
    rejects({ QUARRY_WORLD_SIZE: 'TINY' }, /QUARRY_WORLD_SIZE must be one of/);
    rejects({ QUARRY_BODY_LIMIT: '10' }, /QUARRY_BODY_LIMIT must be between 1024 and/);
    rejects({ QUARRY_BODY_LIMIT: '2mb' }, /QUARRY_BODY_LIMIT must be an integer/);
    rejects({ QUARRY_BODY_LIMIT: String(1024 ** 3) }, /QUARRY_BODY_LIMIT must be between/);
  });

  test('numbers: gateway rate and world seed', () => {
    rejects({ QUARRY_GATEWAY_RPS: '-4' }, /QUARRY_GATEWAY_RPS must be between 0 and/);
    rejects({ QUARRY_GATEWAY_RPS: 'four' }, /QUARRY_GATEWAY_RPS must be an integer/);
    rejects({ QUARRY_SESSION_RPS: '-1' }, /QUARRY_SESSION_RPS must be between 0 and/);
    assert.equal(loadConfig({}).sessionRps, 10);
    assert.equal(loadConfig({ QUARRY_SESSION_RPS: '0' }).sessionRps, 0);
    rejects({ QUARRY_WORLD_SEED: '-1' }, /QUARRY_WORLD_SEED must be between 0 and/);
    rejects({ QUARRY_WORLD_SEED: String(2 ** 31) }, /QUARRY_WORLD_SEED must be between/);
    assert.equal(loadConfig({ QUARRY_WORLD_SEED: '0' }).worldSeed, 0);
    rejects({ QUARRY_FREE_WRITES_PER_MINUTE: '-1' }, /QUARRY_FREE_WRITES_PER_MINUTE must be between 0 and/);
    assert.equal(loadConfig({ QUARRY_FREE_WRITES_PER_MINUTE: '0' }).freeWritesPerMinute, 0);
    assert.equal(loadConfig({}).requestsInFlight, 16);
    rejects({ QUARRY_REQUESTS_IN_FLIGHT: '0' }, /QUARRY_REQUESTS_IN_FLIGHT must be between 1 and/);
    assert.equal(loadConfig({ QUARRY_SESSION_TTL_HOURS: '48' }).sessionTtlHours, 48);
    rejects({ QUARRY_SESSION_TTL_HOURS: '0' }, /QUARRY_SESSION_TTL_HOURS must be between 1 and 720/);
    rejects({ QUARRY_SESSION_TTL_HOURS: '1h' }, /QUARRY_SESSION_TTL_HOURS must be an integer/);
  });

  test('URLs: the public URL must be absolute; SMTP must be smtp:// or smtps://', () => {
    rejects({ QUARRY_PUBLIC_URL: 'not a url' }, /^QUARRY_PUBLIC_URL must be an absolute http\(s\) URL, got "not a url"$/);
    rejects({ QUARRY_PUBLIC_URL: 'ftp://files.example.com' }, /QUARRY_PUBLIC_URL must be an absolute http\(s\) URL/);
    rejects({ QUARRY_PUBLIC_URL: 'javascript:alert(1)' }, /QUARRY_PUBLIC_URL must be an absolute http\(s\) URL/);
    rejects({ QUARRY_PUBLIC_URL: 'localhost:8080' }, /QUARRY_PUBLIC_URL must be an absolute http\(s\) URL/);
    rejects({ QUARRY_PUBLIC_URL: '/v3' }, /QUARRY_PUBLIC_URL must be an absolute http\(s\) URL/);
    rejects({ QUARRY_PUBLIC_URL: 'seo.example.com' }, /QUARRY_PUBLIC_URL must be an absolute http\(s\) URL/);
    rejects({ QUARRY_SMTP_URL: 'mail.example.com:25' }, /QUARRY_SMTP_URL must start with smtp:\/\/ or smtps:\/\//);
    rejects({ QUARRY_SMTP_URL: 'http://mail.example.com' }, /QUARRY_SMTP_URL must start with/);
    assert.equal(loadConfig({ QUARRY_SMTP_URL: 'smtp://localhost:2525' }).smtpUrl, 'smtp://localhost:2525');
    rejects({ QUARRY_REDIS_URL: 'localhost:6379' }, /^QUARRY_REDIS_URL must start with redis:\/\/ or rediss:\/\/$/);
    assert.equal(loadConfig({}).redisUrl, null);
    assert.equal(loadConfig({}).redisPrefix, 'quarry:');
    assert.equal(loadConfig({ QUARRY_REDIS_URL: 'redis://127.0.0.1:6379', QUARRY_REDIS_PREFIX: 'q1:' }).redisPrefix, 'q1:');
    assert.equal(loadConfig({}).databaseUrl, null);
    rejects(
      { QUARRY_DATABASE_URL: 'mysql://db/quarry', QUARRY_REDIS_URL: 'redis://127.0.0.1:6379' },
      /^QUARRY_DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/$/,
    );
    rejects({ QUARRY_DATABASE_URL: 'postgres://db/quarry' }, /^QUARRY_DATABASE_URL needs QUARRY_REDIS_URL/);
    assert.equal(loadConfig({ QUARRY_DATABASE_URL: 'postgres://db/quarry', QUARRY_REDIS_URL: 'redis://127.0.0.1:6379' }).databaseUrl, 'postgres://db/quarry');
  });

  test('log level: a pino level', () => {
    for (const l of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) assert.equal(loadConfig({ QUARRY_LOG_LEVEL: l }).logLevel, l);
    rejects({ QUARRY_LOG_LEVEL: 'verbose' }, /^QUARRY_LOG_LEVEL must be a pino level, got "verbose"$/);
  });

  test('every QUARRY_* variable the code reads is covered here', async () => {
    const fs = await import('node:fs');
    const source = fs.readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');
    const read = new Set([...source.matchAll(/'(QUARRY_[A-Z_]+)'/g)].map((m) => m[1]));
    const covered = [
      'QUARRY_PORT',
      'QUARRY_HOST',
      'QUARRY_DATA_DIR',
      'QUARRY_GATEWAY_RPS',
      'QUARRY_SESSION_RPS',
      'QUARRY_TRUST_PROXY',
      'QUARRY_PUBLIC_URL',
      'QUARRY_PLANS_FILE',
      'QUARRY_WORLD_SIZE',
      'QUARRY_WORLD_SEED',
      'QUARRY_LOG_LEVEL',
      'QUARRY_SMTP_URL',
      'QUARRY_BODY_LIMIT',
      'QUARRY_SIGNING_SECRET',
      'QUARRY_FREE_WRITES_PER_MINUTE',
      'QUARRY_REQUESTS_IN_FLIGHT',
      'QUARRY_REQUEST_TIMEOUT_MS',
      'QUARRY_REDIS_URL',
      'QUARRY_REDIS_PREFIX',
      'QUARRY_DATABASE_URL',
      'QUARRY_SESSION_TTL_HOURS',
      'QUARRY_METRICS_PORT',
      'QUARRY_PG_POOL_SIZE',
      'QUARRY_PG_STATEMENT_TIMEOUT_MS',
      'QUARRY_PG_IDLE_IN_TRANSACTION_MS',
      'QUARRY_PG_POOL_WAIT_MS',
      'QUARRY_DRAIN_TIMEOUT_MS',
      'QUARRY_METRICS_TOKEN',
    ];
    assert.deepEqual([...read].sort(), covered.sort());
  });
});
