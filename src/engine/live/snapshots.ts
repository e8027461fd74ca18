/**
 * The research store shared through PostgreSQL (scale mode): each import publishes the whole
 * store as a numbered generation, the SQLite file gzip-compressed in chunks of
 * `research.snapshot_chunks` (streamed both ways: memory stays flat whatever the size), and
 * announces the number on Redis. Every process fetches a generation its data directory lacks
 * into a file of its own and reloads (researchReloads.ts). Why a file and not queries on
 * PostgreSQL: docs/decisions.md, "The research store in scale mode".
 *
 * @example
 * const generation = await publishSnapshot(pool, engine.store.raw, { redis });   // after an import
 * const shared = sharedGenerations(pool, redis);                                // in each process
 * await shared.fetch(await shared.latest(), fetchedResearchFile(baseFile, n));
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import type { RedisHandle } from '../../lib/redis.js';
import type { ProgressListener } from '../../lib/progress.js';
import { generationOf, setGeneration } from './generation.js';
import type { SharedGenerations } from './researchReloads.js';

/** Bytes of compressed store per row: large enough for few round trips, small enough for any pool's memory. */
export const CHUNK_BYTES = 4 * 1024 * 1024;
/** Published generations kept: the newest, and the one before for processes still fetching it. */
const KEEP_GENERATIONS = 2;

function channelOf(redis: RedisHandle): string {
  return `${redis.prefix}research-generation`;
}

/** Reserves the next generation number: above every published one and at least `atLeast`. */
async function reserve(pool: pg.Pool, atLeast: number, nowMs: number): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const { rows } = await pool.query<{ generation: number }>(
        `INSERT INTO research.snapshots (generation, state, created_ms)
         SELECT GREATEST(COALESCE(MAX(generation), 0) + 1, $1::bigint), 'publishing', $2::bigint FROM research.snapshots
         RETURNING generation`,
        [atLeast, nowMs],
      );
      return Number(rows[0]!.generation);
    } catch (err) {
      // Two publishers took the same number: the loser takes the next one.
      if ((err as { code?: string }).code !== '23505' || attempt >= 5) throw err;
    }
  }
}

export interface PublishOptions {
  /** Announce the generation to every process (their reloads). */
  redis?: RedisHandle | null;
  onProgress?: ProgressListener;
  nowMs?: number;
}

/**
 * Publishes the store as a new generation and answers its number. The store's own
 * generation is set to it first, so that the copy carries it and this data directory's
 * processes see they already have it. The copy is SQLite's online backup into a temporary
 * file (consistent while others write), then streamed.
 */
export async function publishSnapshot(pool: pg.Pool, raw: SqliteDatabase.Database, options: PublishOptions = {}): Promise<number> {
  const nowMs = options.nowMs ?? Date.now();
  const generation = await reserve(pool, generationOf(raw) + 1, nowMs);
  const progress = options.onProgress ?? (() => undefined);
  const temporary = path.join(os.tmpdir(), `quarry-research-${process.pid}-${randomBytes(4).toString('hex')}.db`);
  try {
    setGeneration(raw, generation);
    progress('copy the research store', 0, 1);
    await raw.backup(temporary, { progress: () => 0x7fffffff });
    progress('copy the research store', 1, 1);
    const size = fs.statSync(temporary).size;
    const meter = new SnapshotMeter('publish the research store (bytes)', size, progress);
    let seq = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const data = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await pool.query('INSERT INTO research.snapshot_chunks (generation, seq, data) VALUES ($1, $2, $3)', [generation, seq++, data]);
    };
    await pipeline(
      fs.createReadStream(temporary),
      meter.stream(),
      zlib.createGzip({ level: 6 }),
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          pending.push(chunk);
          pendingBytes += chunk.length;
          if (pendingBytes < CHUNK_BYTES) return done();
          flush().then(() => done(), done);
        },
        final(done) {
          flush().then(() => done(), done);
        },
      }),
    );
    await pool.query(`UPDATE research.snapshots SET state = 'ready', bytes = $2, sha256 = $3, chunks = $4, published_ms = $5 WHERE generation = $1`, [
      generation,
      size,
      meter.digest(),
      seq,
      options.nowMs ?? Date.now(),
    ]);
    // Older generations go (their chunks with them), but the one before stays for a process fetching it now.
    await pool.query(
      `DELETE FROM research.snapshots WHERE generation < (
         SELECT MIN(generation) FROM (SELECT generation FROM research.snapshots WHERE state = 'ready' ORDER BY generation DESC LIMIT $1) kept)`,
      [KEEP_GENERATIONS],
    );
  } catch (error) {
    await pool.query('DELETE FROM research.snapshots WHERE generation = $1', [generation]).catch(() => undefined);
    throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  if (options.redis) await options.redis.client.publish(channelOf(options.redis), String(generation));
  return generation;
}

/** Reads the generations published to PostgreSQL; with Redis, hears their announcements too. */
export function sharedGenerations(pool: pg.Pool, redis: RedisHandle | null): SharedGenerations {
  return {
    async latest() {
      const { rows } = await pool.query<{ generation: number | null }>(`SELECT MAX(generation) AS generation FROM research.snapshots WHERE state = 'ready'`);
      const value = rows[0]?.generation;
      return value === null || value === undefined ? null : Number(value);
    },
    fetch: (generation, file, onProgress) => fetchSnapshot(pool, generation, file, onProgress),
    subscribe(listener) {
      if (!redis) return () => undefined;
      const channel = channelOf(redis);
      const onMessage = (from: string, message: string) => {
        if (from === channel) listener(Number(message));
      };
      redis.subscriber.on('message', onMessage);
      void redis.subscriber.subscribe(channel);
      return () => {
        redis.subscriber.off('message', onMessage);
        void redis.subscriber.unsubscribe(channel).catch(() => undefined);
      };
    },
  };
}

/**
 * Writes a published generation into `file`, chunk by chunk (one row in memory at a time),
 * checks its size and hash, and puts it in place only when whole: a reader never opens a
 * half-written file. Another process of the data directory may fetch the same generation at
 * once; the first one in place wins and the other's copy is dropped.
 */
export async function fetchSnapshot(pool: pg.Pool, generation: number, file: string, onProgress?: ProgressListener): Promise<void> {
  const { rows } = await pool.query<{ bytes: number; sha256: string; chunks: number }>(
    `SELECT bytes, sha256, chunks FROM research.snapshots WHERE generation = $1 AND state = 'ready'`,
    [generation],
  );
  const head = rows[0];
  if (!head) throw new Error(`research generation ${generation} is not published (a newer one replaced it?)`);
  const chunks = Number(head.chunks);
  const bytes = Number(head.bytes);
  const progress = onProgress ?? (() => undefined);
  const temporary = `${file}.fetching-${process.pid}-${randomBytes(4).toString('hex')}`;
  const meter = new SnapshotMeter('fetch the research store (bytes)', bytes, progress);
  async function* read(): AsyncGenerator<Buffer> {
    for (let seq = 0; seq < chunks; seq++) {
      const chunk = await pool.query<{ data: Buffer }>('SELECT data FROM research.snapshot_chunks WHERE generation = $1 AND seq = $2', [generation, seq]);
      if (!chunk.rows[0]) throw new Error(`research generation ${generation} lost its chunk ${seq} while fetched (a newer one replaced it)`);
      yield chunk.rows[0].data;
    }
  }
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    await pipeline(Readable.from(read()), zlib.createGunzip(), meter.stream(), fs.createWriteStream(temporary, { mode: 0o600 }));
    const digest = meter.digest();
    if (meter.bytes !== bytes || digest !== head.sha256)
      throw new Error(`research generation ${generation} arrived damaged (${meter.bytes} of ${bytes} bytes, hash ${digest})`);
    try {
      // link, not rename: it fails when the file is there, where a rename would replace a file in use.
      fs.linkSync(temporary, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } finally {
    fs.rmSync(temporary, { force: true });
  }
}

/** The uncompressed bytes of a snapshot as they pass: counted, hashed (SHA-256) and shown as progress. */
class SnapshotMeter {
  bytes = 0;
  private readonly hash = createHash('sha256');

  constructor(
    private readonly stage: string,
    private readonly total: number,
    private readonly progress: ProgressListener,
  ) {}

  /** A pass-through stream that meters what flows through it. */
  stream(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        this.progress(this.stage, this.bytes, this.total);
        done(null, chunk);
      },
    });
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}
