/**
 * The progress display of long CLI work: it draws during synchronous work (no timer can
 * fire while a world build blocks the event loop), one line per stage without a terminal,
 * a bar redrawn in place with one finished line per stage on a terminal.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { progressBars } from '../../src/lib/progress.js';

function sink(): { stream: Writable; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  return { stream, text: () => out };
}

test('without a terminal: one line per stage as it ends, with its count, time and rate (MB for a byte stage)', () => {
  const { stream, text } = sink();
  let ms = 0;
  const progress = progressBars({ stream, tty: false, now: () => ms });
  progress.listener('keywords', 0, 1);
  ms = 1_500;
  progress.listener('write links', 0, 2_000_000);
  for (let i = 1; i < 100; i++) {
    ms += 10;
    progress.listener('write links', i * 20_000, 2_000_000);
  }
  ms = 5_500;
  progress.listener('read WAT (bytes)', 0, 50e6);
  ms = 7_500;
  progress.listener('read WAT (bytes)', 50e6, 50e6);
  ms = 9_000;
  progress.listener('rank market 2840', 10, 40_000);
  ms = 10_000;
  progress.stop();
  assert.deepEqual(text().trimEnd().split('\n'), [
    ' keywords in 1.5 s',
    ' write links: 2,000,000 of 2,000,000 in 4.0 s (500,000/s)',
    ' read WAT: 50.0 MB of 50.0 MB in 3.5 s (14.3 MB/s)',
    ' rank market 2840: 40,000 of 40,000 in 1.0 s (40,000/s)',
  ]);
  assert.doesNotMatch(text(), /\r|\x1b/, 'no terminal control codes in a log');
});

test('on a terminal: the bar moves while the work runs (drawn synchronously, at most every 100 ms), and each stage ends as one full line', () => {
  const { stream, text } = sink();
  let ms = 0;
  const progress = progressBars({ stream, tty: true, now: () => ms });
  progress.listener('write links', 0, 1_000);
  const draws = () => text().split('\r').length - 1;
  const before = draws();
  progress.listener('write links', 100, 1_000);
  assert.equal(draws(), before, 'not redrawn within 100 ms');
  ms = 150;
  progress.listener('write links', 500, 1_000);
  assert.equal(draws(), before + 1);
  assert.match(text(), /write links\s+\|█{15}░{15}\|\s+50% 500\/1,000 3,333\/s 0\.1 s ETA 0\.1 s/);
  ms = 2_000;
  progress.listener('index links', 0, 6);
  progress.stop();
  const finished = text()
    .split('\r\x1b[K')
    .filter((s) => s.endsWith('\n'))
    .map((s) => s.trimEnd());
  assert.equal(finished.length, 2);
  assert.match(finished[0], /^ write links\s+\|█{30}\| 100% 1,000\/1,000 500\/s 2\.0 s$/);
  assert.match(finished[1], /^ index links\s+\|█{30}\| 100% 6\/6 \d[\d,]*\/s 0\.0 s$/);
});
