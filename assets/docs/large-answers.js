/*
 * The interactive reference (/docs, Swagger UI) on large answers (issue 27).
 *
 * Swagger UI keeps a "Try it out" answer in its immutable state (the parsed body too) and
 * renders the whole body, pretty-printed, in the page: a 1.6 MB related-keywords answer froze
 * the tab for seconds to minutes. An answer larger than LIMIT characters is therefore shown
 * as its first LIMIT characters, pretty-printed, with a link that downloads the whole answer
 * exactly as the server sent it (a Blob URL). The parsed body is dropped from what Swagger UI
 * stores, so its cost no longer grows with the answer. The reference document itself
 * (/docs/json) is never cut.
 *
 * Loaded as a theme script of @fastify/swagger-ui; src/http/openapi.ts hands Swagger UI's
 * responseInterceptor and plugins over to `window.quarryLargeAnswers`.
 */
(function () {
  'use strict';

  /** Characters of an answer shown in the page; a larger answer is cut to this many and offered as a download. */
  var LIMIT = 128 * 1024;

  /** The cut answers by request URL: what the page shows and where the whole answer is. */
  var cut = new Map();

  function isReferenceDocument(url) {
    var path = new URL(url, location.href).pathname;
    return /\/docs\/json$/.test(path) || /\/openapi\.json$/.test(path);
  }

  function headerOf(headers, name) {
    if (!headers) return undefined;
    if (typeof headers.get === 'function') return headers.get(name) || undefined;
    for (var key in headers) if (key.toLowerCase() === name) return headers[key];
    return undefined;
  }

  function sizeText(chars) {
    return chars >= 1024 * 1024 ? (chars / (1024 * 1024)).toFixed(1) + ' MB' : Math.round(chars / 1024) + ' KB';
  }

  function fileNameOf(url, contentType) {
    var last = new URL(url, location.href).pathname.split('/').filter(Boolean).pop() || 'answer';
    return last + (/json/i.test(contentType || '') ? '.json' : /csv/i.test(contentType || '') ? '.csv' : '.txt');
  }

  /** Swagger UI's responseInterceptor: a large answer's text is replaced by its cut preview. */
  function responseInterceptor(res) {
    var text = res && typeof res.text === 'string' ? res.text : undefined;
    if (text === undefined || text.length <= LIMIT || !res.url || isReferenceDocument(res.url)) return res;
    var contentType = headerOf(res.headers, 'content-type') || 'application/octet-stream';
    var shown = text;
    if (/json/i.test(contentType) && res.body !== undefined && res.body !== null && typeof res.body === 'object') {
      shown = JSON.stringify(res.body, null, 2);
    }
    shown = shown.slice(0, LIMIT);
    var lastLine = shown.lastIndexOf('\n');
    if (lastLine > LIMIT / 2) shown = shown.slice(0, lastLine);
    var previous = cut.get(res.url);
    if (previous) URL.revokeObjectURL(previous.href);
    var preview = shown + '\n…';
    cut.set(res.url, {
      preview: preview,
      href: URL.createObjectURL(new Blob([text], { type: contentType })),
      size: text.length,
      fileName: fileNameOf(res.url, contentType),
    });
    res.text = preview;
    res.data = preview;
    // The parsed answer is what makes Swagger UI's state slow; the page shows the text only.
    delete res.body;
    delete res.obj;
    return res;
  }

  /** A Swagger UI plugin: the response body of a cut answer is its preview and a download link. */
  function plugin(system) {
    var h = system.React.createElement;
    return {
      wrapComponents: {
        responseBody: function (Original) {
          return function (props) {
            var entry = props.url ? cut.get(props.url) : undefined;
            if (!entry || props.content !== entry.preview) return h(Original, props);
            return h(
              'div',
              { className: 'quarry-cut-answer' },
              h('h5', null, 'Response body'),
              h(
                'p',
                { className: 'quarry-cut-note' },
                'This answer is ' + sizeText(entry.size) + '; the first ' + sizeText(LIMIT) + ' are shown. ',
                h(
                  'a',
                  { href: entry.href, download: entry.fileName, className: 'quarry-download' },
                  'Download the whole answer (' + sizeText(entry.size) + ')',
                ),
              ),
              h('div', { className: 'highlight-code' }, h('pre', { className: 'microlight' }, entry.preview)),
            );
          };
        },
      },
    };
  }

  window.quarryLargeAnswers = { LIMIT: LIMIT, responseInterceptor: responseInterceptor, plugin: plugin };
})();
