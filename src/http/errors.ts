/**
 * The edge's own error page. ApiError and errors live in lib/errors.ts (re-exported here for
 * route files that still import them from the edge).
 */
export { ApiError, errors } from '../lib/errors.js';

/** The gateway's refusal is an HTML page, not JSON: clients must check Content-Type. */
export const GATEWAY_429_HTML = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>429 Too Many Requests</title></head>
<body><h1>429 Too Many Requests</h1><p>This address sent more requests per second than the gateway allows. Slow down and try again.</p></body></html>
`;
