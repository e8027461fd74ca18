/**
 * A fake of Moz Links API v2 `POST /v2/url_metrics` over a fake link web (linkWeb.ts).
 * Built from Moz's "Overview & Authentication" guide (HTTP Basic with the API credentials,
 * JSON bodies, POST only, base https://lsapi.seomoz.com/v2/) and the URL Metrics reference
 * (`{ "targets": [...] }`, up to 50), with the answer shaped like the genuine url_metrics
 * answer for ["moz.com", "nytimes.com"] printed in miklevin/MikeLev.in
 * (_posts/2023-05-02-moz-links-api-touch-every-endpoint-in-python.md): `{ "results": [...] }`
 * in the targets' order, each result with page, subdomain, root_domain, title,
 * last_crawled, http_code, page_authority, domain_authority, spam_score, link_propensity
 * and the link counts. A target Moz has not crawled still gets a result (authority 1).
 * Errors: 401 `{ "name": "Unauthorized", "message": … }` for a wrong token, 429 for the
 * plan's rate limit.
 */
import { startFakeUpstream, type Answer, type FakeUpstream, type FakeUpstreamOptions, type Recorded } from './upstream.js';
import { authorityOf, fakeRoot, type FakeLinkWeb } from './linkWeb.js';

/** The answer to one url_metrics request (or its error). */
export function mozAnswer(web: FakeLinkWeb, token: string, req: Recorded): Answer {
  if (req.method !== 'POST' || req.url.pathname !== '/v2/url_metrics') return { status: 404, json: { name: 'Not Found', message: 'No such endpoint' } };
  if (req.headers.authorization !== `Basic ${token}`)
    return { status: 401, json: { name: 'Unauthorized', message: 'Authentication failed: invalid credentials' } };
  let targets: unknown;
  try {
    targets = (JSON.parse(req.body) as { targets?: unknown }).targets;
  } catch {
    return { status: 400, json: { name: 'Bad Request', message: 'Body is not JSON' } };
  }
  if (!Array.isArray(targets) || targets.length === 0 || targets.length > 50) {
    return { status: 400, json: { name: 'Bad Request', message: 'targets must be an array of 1 to 50 URLs' } };
  }
  return {
    json: {
      results: targets.map((t: string) => {
        const page = authorityOf(web, t);
        const domain = web.authority[fakeRoot(t)] ?? null;
        const bare = t.replace(/^https?:\/\//, '');
        return {
          page: bare.includes('/') ? bare : `${bare}/`,
          subdomain: bare.split('/')[0],
          root_domain: fakeRoot(t),
          title: '',
          last_crawled: '2026-11-18',
          http_code: page ? 200 : 0,
          pages_to_page: page ? 15_343 : 0,
          nofollow_pages_to_page: page ? 968 : 0,
          redirect_pages_to_page: 0,
          external_pages_to_page: page ? 14_981 : 0,
          root_domains_to_page: page ? 4_119 : 0,
          root_domains_to_root_domain: domain ? 179_884 : 0,
          external_pages_to_root_domain: domain ? 69_376_449 : 0,
          link_propensity: 0.0088,
          spam_score: page?.spam ?? domain?.spam ?? -1,
          page_authority: page?.pa ?? 1,
          domain_authority: domain?.da ?? page?.da ?? 1,
        };
      }),
    },
  };
}

/** A running Moz fake answering about `web` to the token `token` (the base64 of `access_id:secret`). */
export async function startFakeMoz(web: FakeLinkWeb, token: string, options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const fake = await startFakeUpstream(options);
  fake.setDefault((req) => mozAnswer(web, token, req));
  return fake;
}
