/** Account: the plan, and every quota pool with what is left and when it is full again. */
import { api, type SessionInfo } from '../api';
import { useApi } from '../useApi';
import { AsyncView } from '../components/States';

interface Limits {
  plan: string;
  'related-keywords-rows': number;
  'competitor-keywords-rows': number;
  'tracked-keywords': number;
  'reqs-per-short-period': number;
  resources: Record<string, { limit: number; remaining: number; reset?: number | null }>;
}

function inWords(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'full (no period running)';
  if (seconds <= 0) return 'now';
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `in ${d ? `${d} d ` : ''}${h ? `${h} h ` : ''}${m} min`;
}

export default function Account({ session }: { session: SessionInfo }) {
  const limits = useApi(() => api.limits() as unknown as Promise<Limits>, []);
  return (
    <div class="page account">
      <h1>Account</h1>
      <p>
        {session.account.email} · account <code>{session.account.id}</code> · session ends {new Date(session.expires_at * 1000).toLocaleString('en')}
      </p>
      <AsyncView state={limits} what="your plan's limits" onRetry={limits.reload}>
        {(l) => (
          <>
            <h2>
              Plan <span data-plan>{l.plan}</span>
            </h2>
            <p>
              {l['related-keywords-rows']} related keywords per lookup · {l['competitor-keywords-rows']} competitor keywords per lookup ·{' '}
              {l['tracked-keywords']} tracked keywords · {l['reqs-per-short-period']} requests per pool per second from this dashboard
            </p>
            <table class="plain pools">
              <thead>
                <tr>
                  <th>Pool</th>
                  <th class="right">Remaining</th>
                  <th class="right">Limit</th>
                  <th>Used</th>
                  <th>Full again</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(l.resources)
                  .filter(([, r]) => r.limit > 0)
                  .map(([name, r]) => (
                    <tr key={name} data-pool={name}>
                      <td>{name}</td>
                      <td class="right">{r.remaining.toLocaleString('en')}</td>
                      <td class="right">{r.limit.toLocaleString('en')}</td>
                      <td>
                        <meter min={0} max={r.limit} value={r.limit - r.remaining} />
                      </td>
                      <td>{r.reset === undefined ? '–' : inWords(r.reset)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </>
        )}
      </AsyncView>
    </div>
  );
}
