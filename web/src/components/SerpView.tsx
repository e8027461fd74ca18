/** A SERP: its features, the organic results with their metrics, and a link to the snapshot image. */
import { api, data } from '../api';
import { useApi } from '../useApi';
import { AsyncView, Empty } from './States';
import type { Serp, SerpItem } from '../types';
import { href, linkClick } from '../router';

/** The SERP of a keyword in a location (none asked for while `kw` is empty). */
export function useSerp(kw: string, locationId: number) {
  return useApi(kw ? () => data<Serp>(api.GET('/serp-tool/serps', { params: { query: { kw, location_id: locationId } } })) : null, [kw, locationId]);
}

export function SerpPanel({ kw, locationId, compact = false }: { kw: string; locationId: number; compact?: boolean }) {
  const serp = useSerp(kw, locationId);
  return (
    <section class="serp-panel" aria-label={`SERP for ${kw}`}>
      <AsyncView state={serp} what={`the SERP for “${kw}”`} onRetry={serp.reload}>
        {(s) => <SerpView serp={s} compact={compact} />}
      </AsyncView>
    </section>
  );
}

export function SerpView({ serp, compact }: { serp: Serp; compact?: boolean }) {
  const features = [...new Set(serp.items.filter((i) => i.type !== 'ORGANIC').map((i) => i.type))];
  let organic = 0;
  return (
    <div class="serp">
      <h3>
        “{serp.kw}” <small>in {serp.location.label}</small>
      </h3>
      <p class="serp-meta">
        Difficulty <b data-kd>{serp.rank}</b> · SERP features impact {serp.serpFeaturesImpact ?? '–'}
        {compact && (
          <>
            {' · '}
            <a href={href('/app/serp', { kw: serp.kw, loc: serp.location._id })} onClick={linkClick}>
              open SERP
            </a>
          </>
        )}
      </p>
      {features.length > 0 && (
        <p class="features">
          {features.map((f) => (
            <span key={f} class="chip">
              {f}
            </span>
          ))}
        </p>
      )}
      {serp.items.length === 0 ? (
        <Empty>This SERP has no results.</Empty>
      ) : (
        <ol class="serp-items">
          {serp.items.map((item, i) => {
            const isOrganic = item.type === 'ORGANIC';
            if (isOrganic) organic++;
            return <SerpRow key={`${i}-${item.url}`} item={item} position={isOrganic ? organic : null} compact={compact} />;
          })}
        </ol>
      )}
    </div>
  );
}

function SerpRow({ item, position, compact }: { item: SerpItem; position: number | null; compact?: boolean }) {
  const cf = item.m?.linkindex?.v?.CitationFlow;
  const tf = item.m?.linkindex?.v?.TrustFlow;
  const pda = item.m?.authority?.v?.pda;
  return (
    <li class={`serp-item type-${item.type}`}>
      <span class="pos">{position ?? '·'}</span>
      <span class="what">
        <span class="chip small">{item.type}</span> {item.title ?? (item.items?.length ? `${item.items.length} items` : '')}
        {item.url && (
          <div class="url" title={item.url}>
            {item.url}
          </div>
        )}
      </span>
      {!compact && (
        <span class="metrics">
          {cf !== undefined && <span title="Citation flow">CF {cf}</span>}
          {tf !== undefined && <span title="Trust flow">TF {tf}</span>}
          {pda !== undefined && <span title="Domain authority">DA {pda}</span>}
          {item.topRank ? <span title="TopRank of the domain">#{item.topRank}</span> : null}
          {item.ctr !== undefined && item.ctr !== null && (
            <span title="Estimated click-through rate">CTR {(item.ctr <= 1 ? item.ctr * 100 : item.ctr).toFixed(1)}%</span>
          )}
          {item.positionToFold && <span title="Above or below the fold">{item.positionToFold.status}</span>}
        </span>
      )}
    </li>
  );
}
