import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RANK_CHART_CID, renderRankReport, summariseRankPeriod, type RankReportInput, type RankReportKeyword } from '../../src/render/rankReportEmail.js';
import { decodePng } from './pngInspection.js';

const week = ['2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21'];
const track = (kw: string, sv: number | null, url: string | null, positions: (number | null)[]): RankReportKeyword => ({
  kw,
  sv,
  url,
  history: positions.map((position, i) => ({ date: week[i], position })),
});

const KEYWORDS: RankReportKeyword[] = [
  track('emergency plumber near me', 40_500, 'https://www.rapidflow.example/emergency', [8, 7, 6, 5, 4, 3, 2]),
  track('24 hour plumber', 12_100, 'https://www.rapidflow.example/24-hour', [3, 3, 4, 4, 5, 5, 6]),
  track('blocked drain', 9_900, null, [null, null, null, 40, 35, 30, 25]),
  track('water heater repair', 5_400, 'https://www.rapidflow.example/water-heaters', [15, 16, 18, 30, 60, 90, null]),
  track('plumber brooklyn', 2_900, 'https://www.rapidflow.example/', [1, 1, 1, 1, 1, 1, 1]),
];

const input = (over: Partial<RankReportInput> = {}): RankReportInput => ({
  type: 0,
  tracking: { domain: 'rapidflow.example', location: { label: 'Brooklyn, New York, United States', code: 'us' }, platform_id: 1 },
  period: { start: week[0], end: week[6] },
  keywords: KEYWORDS,
  trackingUrl: 'https://quarry.example/rank/abc',
  dataLabel: 'Sandbox data',
  ...over,
});

describe('rank report email', () => {
  it('summarises the period from first and last positions', () => {
    const s = summariseRankPeriod(KEYWORDS);
    assert.equal(s.keywords, 5);
    assert.equal(s.top3, 2); // positions 2 and 1
    assert.equal(s.top10, 3); // + position 6
    assert.equal(s.top100, 4); // + 25; water heater repair dropped out
    assert.equal(s.averagePosition, 8.5); // (2 + 6 + 25 + 1) / 4
    assert.equal(s.improved, 1);
    assert.equal(s.declined, 1);
    assert.equal(s.entered, 1);
    assert.equal(s.dropped, 1);
    assert.deepEqual(
      s.rows.map((r) => r.kw),
      ['plumber brooklyn', 'emergency plumber near me', '24 hour plumber', 'blocked drain', 'water heater repair'],
    );
    assert.equal(s.topGains[0].kw, 'emergency plumber near me');
    assert.equal(s.topGains[0].change, 6);
    assert.ok(s.visibility > 0 && s.visibility <= 100);
  });

  it('renders subject, HTML and text with the chart as an inline CID image', () => {
    const mail = renderRankReport(input());
    assert.equal(mail.subject, 'Weekly rank report: rapidflow.example — Brooklyn, New York, United States, Desktop (2026-11-15 – 2026-11-21)');
    assert.equal(mail.attachments.length, 1);
    const [chart] = mail.attachments;
    assert.equal(chart.cid, RANK_CHART_CID);
    assert.equal(chart.contentType, 'image/png');
    assert.ok(mail.html.includes(`src="cid:${RANK_CHART_CID}"`));
    assert.equal(decodePng(chart.content as Buffer).width, 600);
    for (const part of [mail.html, mail.text]) {
      assert.ok(part.includes('emergency plumber near me'));
      assert.ok(part.includes('Sandbox data'));
      assert.ok(part.includes('40,500'));
    }
    assert.ok(mail.html.includes('▲ 6') && mail.html.includes('lost') && mail.html.includes('new'));
    assert.ok(renderRankReport(input({ type: 1 })).subject.startsWith('Monthly rank report'));
  });

  it('escapes hostile keywords, domains and URLs', () => {
    const evil = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const mail = renderRankReport(
      input({
        tracking: { domain: `evil.example\r\nBcc: victim@example.com ${evil}`, location: { label: evil, code: 'us' }, platform_id: 2 },
        keywords: [
          track(evil, 10, 'javascript:alert(1)', [5, 4, 3, 2, 1, 1, 1]),
          track(`a & b "quoted" 'single'`, null, `https://x.example/?q="><script>`, [1, 2, 3, 4, 5, 6, 7]),
        ],
        name: evil,
        trackingUrl: 'javascript:alert(2)',
      }),
    );
    assert.ok(!mail.subject.includes('\n') && !mail.subject.includes('\r'));
    assert.ok(!/<script|<img src=x/i.test(mail.html), 'no hostile markup survives');
    assert.ok(mail.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(mail.html.includes('a &amp; b &quot;quoted&quot; &#39;single&#39;'));
    assert.ok(!mail.html.includes('href="javascript:'), 'only web links are linked');
    assert.ok(mail.html.includes('href="https://x.example/?q=%22%3E%3Cscript%3E"'));
  });

  it('leaves the chart out when nothing ranked in the period', () => {
    const mail = renderRankReport(input({ keywords: [track('nowhere', 10, null, [null, null, null, null, null, null, null])] }));
    assert.equal(mail.attachments.length, 0);
    assert.ok(!mail.html.includes('cid:'));
    assert.ok(mail.text.includes('nowhere | >100'));
  });
});
