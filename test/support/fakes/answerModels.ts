/**
 * Fakes of the AI answer providers the answer tool asks, each in its documented format, with
 * answers about running shoes that name Hoka, Brooks and Asics and cite their sites.
 *
 * - OpenAI Responses API (`POST /v1/responses`, Bearer): the answer's shape follows OpenAI's
 *   "Web search" guide and the genuine response fixture of openai-php/client
 *   (src/Testing/Responses/Fixtures/Responses/ResponseObjectFixture.php): an `output` of a
 *   `web_search_call` and a `message` whose `output_text` carries `url_citation`
 *   annotations (`start_index`, `end_index`, `url` with `utm_source=chatgpt.com`, `title`).
 * - Perplexity (`POST /chat/completions`, Bearer): the Sonar API reference
 *   (docs.perplexity.ai): `choices[0].message.content` with [n] marks, `citations` (URLs),
 *   `search_results` (`title`, `url`, `date`) and `usage.cost.total_cost`.
 * - Gemini (`POST /v1beta/models/{model}:generateContent`, `x-goog-api-key`): "Grounding with
 *   Google Search" (ai.google.dev) and the GroundingMetadata reference (cloud.google.com):
 *   `candidates[0].content.parts[].text`, `groundingMetadata.groundingChunks[].web` whose
 *   `uri` is a vertexaisearch.cloud.google.com grounding-api-redirect link and `title` the
 *   source's domain, `groundingSupports`, `webSearchQueries`.
 * - SerpApi's Google Search with an `ai_overview` block: the JSON example of serpapi.com's
 *   "Google AI Overview Results API" page (`text_blocks` of paragraphs and lists with
 *   `reference_indexes`, `references` with `title`, `link`, `snippet`, `source`, `index`), and
 *   the `page_token` of a lazily loaded overview fetched with `engine=google_ai_overview`.
 * - DataForSEO's organic live advanced result with an `ai_overview` item: the data model of
 *   the data-for-seo crate (docs.rs: SerpApiElementAiOverview, …AiOverviewElement,
 *   …AiOverviewReference: `items[]` of `ai_overview_element` with `title`, `text`,
 *   `references[]` of `source`, `domain`, `url`, `title`, `text`).
 *
 * In each answer, Hoka is mentioned a known number of times in the prose (list items
 * included) and also appears where it must not count (a link label, a citation title).
 */
import { startFakeUpstream, type Answer, type FakeUpstream, type Recorded } from './upstream.js';

export const FAKE_OPENAI_KEY = 'sk-test-openai';
export const FAKE_PERPLEXITY_KEY = 'pplx-test';
export const FAKE_GEMINI_KEY = 'gemini-test-key';

const unauthorised = (message: string): Answer => ({ status: 401, json: { error: { message, type: 'invalid_request_error', code: 'invalid_api_key' } } });

/** The text of the OpenAI answer: Hoka twice in prose (once in a list item), once more in a markdown link label. */
export const OPENAI_TEXT =
  'For most runners the best cushioned shoes in 2025 come from a few brands:\n\n' +
  '- Hoka Clifton 10: soft and light ([hoka.com](https://www.hoka.com/en/us/clifton?utm_source=chatgpt.com))\n' +
  '- Brooks Ghost 16: a dependable daily trainer ([brooksrunning.com](https://www.brooksrunning.com/en_us/ghost?utm_source=chatgpt.com))\n\n' +
  'Many reviewers say HOKA is the most comfortable choice for long runs. ([runnersworld.com](https://www.runnersworld.com/gear/a1/best-running-shoes/?utm_source=chatgpt.com))';

function spanOf(text: string, needle: string): [number, number] {
  const at = text.indexOf(needle);
  return [at, at + needle.length];
}

export function openAiResponse(model: string): unknown {
  const cite = (needle: string, url: string, title: string) => {
    const [start_index, end_index] = spanOf(OPENAI_TEXT, needle);
    return { type: 'url_citation', start_index, end_index, url, title };
  };
  return {
    id: 'resp_67ccf18ef5fc8190b16dbee19bc54e5f087bb177ab789d5c',
    object: 'response',
    created_at: 1741484430,
    status: 'completed',
    error: null,
    model,
    output: [
      { type: 'web_search_call', id: 'ws_67ccf18f64008190a39b619f4c8455ef087bb177ab789d5c', status: 'completed' },
      {
        type: 'message',
        id: 'msg_67ccf190ca3881909d433c50b1f6357e087bb177ab789d5c',
        status: 'completed',
        role: 'assistant',
        content: [
          {
            type: 'output_text',
            text: OPENAI_TEXT,
            annotations: [
              cite(
                '([hoka.com](https://www.hoka.com/en/us/clifton?utm_source=chatgpt.com))',
                'https://www.hoka.com/en/us/clifton?utm_source=chatgpt.com',
                'Clifton 10 | HOKA',
              ),
              cite(
                '([brooksrunning.com](https://www.brooksrunning.com/en_us/ghost?utm_source=chatgpt.com))',
                'https://www.brooksrunning.com/en_us/ghost?utm_source=chatgpt.com',
                'Ghost 16 | Brooks Running',
              ),
              cite(
                '([runnersworld.com](https://www.runnersworld.com/gear/a1/best-running-shoes/?utm_source=chatgpt.com))',
                'https://www.runnersworld.com/gear/a1/best-running-shoes/?utm_source=chatgpt.com',
                'The 12 Best Running Shoes of 2025, Tested by Editors',
              ),
            ],
          },
        ],
      },
    ],
    usage: { input_tokens: 328, output_tokens: 356, total_tokens: 684 },
  };
}

/** Hoka three times in prose (accents and case differ), Brooks once, Asics once. */
export const PERPLEXITY_TEXT =
  'The top picks are the Hoka Bondi 9 [1] and the Brooks Glycerin 21 [2]. Höka shoes have thick, well-cushioned midsoles that many runners love [1][3]. ' +
  'Asics is a solid alternative [3].\n\n1. **hoka** Mach 6 — the best tempo shoe [1]';

export function perplexityResponse(): unknown {
  return {
    id: '3c90c3cc-0d44-4b50-8888-8dd25736052a',
    model: 'sonar',
    object: 'chat.completion',
    created: 1724369245,
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: PERPLEXITY_TEXT } }],
    citations: ['https://www.hoka.com/en/us/bondi-9', 'https://www.brooksrunning.com/en_us/glycerin-21', 'https://www.runrepeat.com/hoka-vs-asics'],
    search_results: [
      { title: 'Bondi 9 | HOKA', url: 'https://www.hoka.com/en/us/bondi-9', date: '2025-01-10' },
      { title: 'Glycerin 21 | Brooks Running', url: 'https://www.brooksrunning.com/en_us/glycerin-21', date: '2024-11-02' },
      { title: 'Hoka vs Asics: which is better?', url: 'https://www.runrepeat.com/hoka-vs-asics', date: '2025-02-01' },
    ],
    usage: {
      prompt_tokens: 9,
      completion_tokens: 120,
      total_tokens: 129,
      search_context_size: 'low',
      cost: { input_tokens_cost: 0, output_tokens_cost: 0.0001, request_cost: 0.005, total_cost: 0.0051 },
    },
  };
}

/** Hoka once, Asics twice (Asics first). */
export const GEMINI_TEXT = 'Asics makes the Gel-Nimbus, a plush long-run shoe. Hoka is another strong choice, and Asics is often cheaper.';

export function geminiResponse(): unknown {
  const redirect = (id: string) => `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${id}`;
  return {
    candidates: [
      {
        content: { role: 'model', parts: [{ text: GEMINI_TEXT }] },
        finishReason: 'STOP',
        groundingMetadata: {
          webSearchQueries: ['best running shoes 2025'],
          searchEntryPoint: { renderedContent: '<style>…</style><div class="container">…</div>' },
          groundingChunks: [
            { web: { uri: redirect('AUZIYQG1'), title: 'asics.com' } },
            { web: { uri: redirect('AUZIYQH2'), title: 'hoka.com' } },
            { web: { uri: redirect('AUZIYQJ3'), title: 'hoka.com' } },
          ],
          groundingSupports: [
            {
              segment: { startIndex: 0, endIndex: 51, text: 'Asics makes the Gel-Nimbus, a plush long-run shoe.' },
              groundingChunkIndices: [0],
              confidenceScores: [0.9],
            },
            { segment: { startIndex: 52, endIndex: 110, text: 'Hoka is another strong choice, and Asics is often cheaper.' }, groundingChunkIndices: [1, 2] },
          ],
        },
      },
    ],
    usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 40, totalTokenCount: 48 },
    modelVersion: 'gemini-2.5-flash',
  };
}

/** A SerpApi page with an inline AI Overview: Hoka once in a paragraph and once in a list item. */
export function serpApiOverviewPage(q: string, lazy = false): unknown {
  return {
    search_metadata: { id: '68a1', status: 'Success', google_url: `https://www.google.com/search?q=${encodeURIComponent(q)}` },
    search_parameters: { engine: 'google', q },
    ai_overview: lazy
      ? { page_token: 'KIVu-nictZPdbqMwEIXfJdeQghnw', serpapi_link: 'https://serpapi.com/search.json?engine=google_ai_overview&page_token=KIVu' }
      : SERPAPI_OVERVIEW,
    organic_results: [{ position: 1, title: 'Hoka', link: 'https://www.hoka.com/', snippet: 'Fly human fly.' }],
  };
}

export const SERPAPI_OVERVIEW = {
  text_blocks: [
    { type: 'paragraph', snippet: 'Good running shoes cushion each stride. Hoka is known for maximal cushioning.', reference_indexes: [0] },
    {
      type: 'list',
      list: [
        { title: 'Cushioned', snippet: 'Hoka Clifton and Brooks Ghost', reference_indexes: [0, 1] },
        { title: 'Stable', snippet: 'Asics Gel-Kayano', reference_indexes: [2] },
      ],
    },
  ],
  references: [
    { title: 'Hoka Clifton 10 review', link: 'https://www.hoka.com/en/us/clifton-10/', snippet: 'Hoka Clifton…', source: 'HOKA', index: 0 },
    { title: 'Brooks Ghost 16', link: 'https://www.brooksrunning.com/en_us/ghost', snippet: 'Ghost…', source: 'Brooks Running', index: 1 },
    { title: 'Gel-Kayano 31', link: 'https://www.asics.com/us/en-us/gel-kayano-31/', snippet: 'Kayano…', source: 'ASICS', index: 2 },
  ],
};

/** A DataForSEO organic result with an AI Overview: Hoka twice. */
export function dataForSeoOverviewResult(keyword: string): unknown {
  return {
    keyword,
    type: 'organic',
    se_domain: 'google.com',
    location_code: 2840,
    language_code: 'en',
    items: [
      {
        type: 'ai_overview',
        rank_group: 1,
        rank_absolute: 1,
        position: 'left',
        asynchronous_ai_overview: false,
        items: [
          {
            type: 'ai_overview_element',
            title: 'Top cushioned running shoes',
            text: 'Hoka and Brooks lead for cushioning; Hoka is lighter.',
            references: [
              {
                type: 'ai_overview_reference',
                source: 'HOKA',
                domain: 'www.hoka.com',
                url: 'https://www.hoka.com/en/us/',
                title: 'HOKA Official Site',
                text: null,
              },
            ],
          },
        ],
        references: [
          {
            type: 'ai_overview_reference',
            source: 'Brooks Running',
            domain: 'www.brooksrunning.com',
            url: 'https://www.brooksrunning.com/',
            title: 'Brooks',
            text: null,
          },
        ],
      },
      { type: 'organic', rank_group: 1, rank_absolute: 2, domain: 'www.hoka.com', url: 'https://www.hoka.com/', title: 'HOKA' },
    ],
  };
}

const bearer = (req: Recorded, key: string) => req.headers.authorization === `Bearer ${key}`;

export async function startFakeOpenAi(): Promise<FakeUpstream> {
  const fake = await startFakeUpstream();
  fake.setDefault((req) => {
    if (req.method !== 'POST' || req.url.pathname !== '/v1/responses') return { status: 404, json: { error: { message: 'Unknown request URL' } } };
    if (!bearer(req, FAKE_OPENAI_KEY)) return unauthorised('Incorrect API key provided');
    return { json: openAiResponse((JSON.parse(req.body) as { model: string }).model) };
  });
  return fake;
}

export async function startFakePerplexity(): Promise<FakeUpstream> {
  const fake = await startFakeUpstream();
  fake.setDefault((req) => {
    if (req.method !== 'POST' || req.url.pathname !== '/chat/completions') return { status: 404, json: { error: { message: 'Not found' } } };
    if (!bearer(req, FAKE_PERPLEXITY_KEY)) return unauthorised('Invalid API key');
    return { json: perplexityResponse() };
  });
  return fake;
}

export async function startFakeGemini(): Promise<FakeUpstream> {
  const fake = await startFakeUpstream();
  fake.setDefault((req) => {
    if (req.method !== 'POST' || !/^\/v1beta\/models\/[^/]+:generateContent$/.test(req.url.pathname))
      return { status: 404, json: { error: { code: 404, message: 'Not found' } } };
    if (req.headers['x-goog-api-key'] !== FAKE_GEMINI_KEY)
      return { status: 400, json: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } } };
    return { json: geminiResponse() };
  });
  return fake;
}

/** SerpApi's search.json: a page with an inline overview, or for `lazyQuery` a page_token and then the google_ai_overview engine. */
export async function startFakeSerpApiOverviews(apiKey: string, lazyQuery = ''): Promise<FakeUpstream> {
  const fake = await startFakeUpstream();
  fake.setDefault((req) => {
    const p = req.url.searchParams;
    if (p.get('api_key') !== apiKey)
      return { status: 401, json: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' } };
    if (p.get('engine') === 'google_ai_overview') return { json: { search_metadata: { status: 'Success' }, ai_overview: SERPAPI_OVERVIEW } };
    const q = p.get('q') ?? '';
    return { json: serpApiOverviewPage(q, lazyQuery !== '' && q.toLowerCase() === lazyQuery.toLowerCase()) };
  });
  return fake;
}

/** The DataForSEO organic live advanced endpoint answering with an AI Overview, $0.002 a task. */
export async function startFakeDataForSeoOverviews(login: string, password: string): Promise<FakeUpstream> {
  const fake = await startFakeUpstream();
  fake.setDefault((req) => {
    if (req.headers.authorization !== `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`) {
      return { status: 401, json: { status_code: 40100, status_message: 'You are not authorized to access this resource.' } };
    }
    const [task] = JSON.parse(req.body) as { keyword: string }[];
    return {
      json: {
        version: '0.1.20250526',
        status_code: 20000,
        status_message: 'Ok.',
        cost: 0.002,
        tasks_count: 1,
        tasks: [
          {
            id: '05291522-1535-0066-0000-37d1d5a1c8b5',
            status_code: 20000,
            status_message: 'Ok.',
            cost: 0.002,
            result: [dataForSeoOverviewResult(task.keyword)],
          },
        ],
      },
    };
  });
  return fake;
}
