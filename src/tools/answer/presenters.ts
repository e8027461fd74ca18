/** The answer tool's objects as the API answers them, each shape given once. */
import type { AnswerBody } from '../../answers/analysis.js';
import { parseAnalysis } from '../../answers/answerStats.js';
import { DISPLAY_FLAGS, parseJsonList, type DisplayFlags, type MonitorRow, type ResultRow } from '../../store/answerMonitors.js';
import type { MonitorListItemJson, PromptDetailJson } from './schemas.js';

export function monitoringState(m: MonitorRow): MonitorListItemJson['monitoring_state'] {
  if (m.is_deleted === 1) return 'paused';
  return m.last_check_failed === 1 ? 'warned' : 'active';
}

export function presentMonitor(m: MonitorRow, dates: readonly string[], prompts: number): MonitorListItemJson {
  return {
    _id: m.id,
    brand: m.brand,
    domain: m.domain,
    location_id: m.location_id,
    language_id: m.language_id,
    share_token: m.share_token,
    monitoring_state: monitoringState(m),
    dates: [...dates],
    platform_id: m.platform_id,
    models: parseJsonList<number>(m.models),
    prompts,
    created_at: m.created_at,
  };
}

export function presentSettings(m: MonitorRow) {
  const display = JSON.parse(m.display) as DisplayFlags;
  const flags = Object.fromEntries(DISPLAY_FLAGS.map((f) => [f, display[f] ?? true])) as Record<(typeof DISPLAY_FLAGS)[number], boolean>;
  return {
    location_id: m.location_id,
    brand: m.brand,
    domain: m.domain,
    models: parseJsonList<number>(m.models),
    language_id: m.language_id,
    reports_active: parseJsonList<number>(m.reports_active),
    brandVariations: parseJsonList<string>(m.brand_variations),
    status_notifications: m.status_notifications === 1,
    hasPendingChanges: m.pending_changes === 1,
    platform_id: m.platform_id,
    ...flags,
  };
}

/** A day's result of a prompt from one model, with the answer's text and citations (null body: failed, or no longer held). */
export function presentAnswer(r: ResultRow, body: AnswerBody | null): PromptDetailJson['answers'][number] {
  const a = parseAnalysis(r.analysis);
  return {
    model_id: r.model_id,
    date: r.day,
    status: r.status === 'ok' ? 'ok' : 'failed',
    ...(r.error !== null ? { error: r.error } : {}),
    text: body?.text ?? '',
    mentions: a?.mentions ?? [],
    citations: (body?.citations ?? []).map((c) => ({ url: c.url, title: c.title, domain: c.domain })),
    position: a?.position ?? null,
    sentiment: a?.sentiment ?? null,
    cites_domain: (a?.domainUrls.length ?? 0) > 0,
    brands: a?.brands ?? [],
  };
}
