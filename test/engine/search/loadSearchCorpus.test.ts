/**
 * The ranking worker of a world build reads the pages in slices (rankWorker.ts): the build
 * writes the same file meanwhile with its journal in memory, under SQLite's file locks, where
 * a statement still being read would hold off every commit of the build until it ended.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadSearchCorpus } from '../../../src/engine/search/loadSearchCorpus.js';
import { copyTinyWorld } from '../../support/world.js';

/** A copy of the tiny world in rollback-journal mode (as a build writes it), a reader and a writer on it. */
async function rollbackCopy(): Promise<{ reader: Database.Database; writer: Database.Database; done(): void }> {
  const file = await copyTinyWorld(1);
  const setup = new Database(file);
  setup.pragma('journal_mode = DELETE');
  setup.close();
  const reader = new Database(file, { readonly: true });
  const writer = new Database(file);
  writer.pragma('journal_mode = MEMORY');
  // Refused at once rather than waited for: the test asks whether the reader lets it commit.
  writer.pragma('busy_timeout = 0');
  return {
    reader,
    writer,
    done() {
      reader.close();
      writer.close();
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}

/** Loads the corpus, trying a commit on the writer at every progress report (every 10,000 pages read); answers the commits' outcomes. */
function commitsWhileLoading(reader: Database.Database, writer: Database.Database, pagesPerRead?: number) {
  const outcomes: string[] = [];
  const loaded = loadSearchCorpus(
    reader,
    undefined,
    (stage, done) => {
      if (stage !== 'index page text' || done === 0) return;
      try {
        writer.prepare("INSERT OR REPLACE INTO world_meta (key, value) VALUES ('probe', ?)").run(String(done));
        outcomes.push('committed');
      } catch (error) {
        outcomes.push((error as { code?: string }).code ?? String(error));
      }
    },
    pagesPerRead === undefined ? {} : { pagesPerRead },
  );
  return { loaded, outcomes };
}

test('read in slices, the pages let a writer commit between reads, and give the same corpus and text index', async () => {
  const copy = await rollbackCopy();
  try {
    const sliced = commitsWhileLoading(copy.reader, copy.writer, 2_000);
    assert.ok(sliced.outcomes.length > 0);
    assert.deepEqual(new Set(sliced.outcomes), new Set(['committed']));
    const whole = commitsWhileLoading(copy.reader, copy.writer);
    // One statement over every page: the writer is refused while it is being read.
    assert.deepEqual(new Set(whole.outcomes), new Set(['SQLITE_BUSY']));
    assert.deepEqual(
      sliced.loaded.corpus.pages.map((p) => p.id),
      whole.loaded.corpus.pages.map((p) => p.id),
    );
    assert.deepEqual(sliced.loaded.corpus.pages, whole.loaded.corpus.pages);
    assert.deepEqual(sliced.loaded.index.toParts(), whole.loaded.index.toParts());
    assert.equal(sliced.loaded.textFingerprint, whole.loaded.textFingerprint);
  } finally {
    copy.done();
  }
});
