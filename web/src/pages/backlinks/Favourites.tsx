/** The favourites tab: one favourite list per target domain, and the starred links of one. */
import type { components } from '@quarry/client';
import { api, data } from '../../api';
import { useAction, useApi } from '../../useApi';
import { href, linkClick, navigate } from '../../router';
import { AsyncView, Empty, ProblemBox } from '../../components/States';
import { DeleteButton } from '../../components/Form';
import { PlainTable } from '../../components/PlainTable';
import type { Column } from '../../components/sorting';

type Schemas = components['schemas'];
type BackLink = Schemas['BackLink'];
type FavoriteList = Schemas['FavoriteList'];

export function Favourites({ id }: { id: string | null }) {
  const lists = useApi(() => data<FavoriteList[]>(api.GET('/link-tool/favorites')), []);
  const remove = useAction(async (list: FavoriteList) => {
    await api.DELETE('/link-tool/favorites/{list_id}', { params: { path: { list_id: list._id } } });
    navigate(href('/app/backlinks', { tab: 'favorites' }), true);
    lists.reload();
  });
  return (
    <section class="favourites">
      {remove.problem && <ProblemBox problem={remove.problem} />}
      <AsyncView state={lists} what="your favourite lists" onRetry={lists.reload}>
        {(all) =>
          all.length === 0 ? (
            <Empty>No favourites yet. Star backlinks in the Backlinks tab: each target domain gets its own list.</Empty>
          ) : (
            <div class="split">
              <table class="plain" aria-label="Favourite lists">
                <thead>
                  <tr>
                    <th>Target domain</th>
                    <th class="right">Links</th>
                    <th>Updated</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {all.map((l) => (
                    <tr key={l._id} class={l._id === id ? 'selected' : ''}>
                      <td>
                        <a href={href('/app/backlinks', { tab: 'favorites', list: l._id })} onClick={linkClick}>
                          {l.domain}
                        </a>
                      </td>
                      <td class="right">{l.link_ids.length}</td>
                      <td>{new Date(l.updated_at * 1000).toLocaleString('en')}</td>
                      <td>
                        <DeleteButton busy={remove.busy} confirmText={`Delete the favourite list of ${l.domain}?`} onDelete={() => void remove.run(l)} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {id && <FavouriteList id={id} onChange={lists.reload} />}
            </div>
          )
        }
      </AsyncView>
    </section>
  );
}

function FavouriteList({ id, onChange }: { id: string; onChange: () => void }) {
  const list = useApi(() => data<FavoriteList | null>(api.GET('/link-tool/favorites/{list_id}', { params: { path: { list_id: id } } })), [id]);
  const unstar = useAction(async (link: BackLink) => {
    await api.PATCH('/link-tool/favorite-links/{link_id}', { params: { path: { link_id: link._id } }, body: { favorite: false } });
    list.reload();
    onChange();
  });
  // Sortable by the linking page, the anchor and its TrustFlow (what a link builder ranks by).
  const columns: Column<BackLink>[] = [
    { key: 'source', label: 'Linking page', value: (link) => link.source, cellClass: () => 'url', render: (link) => link.source },
    { key: 'anchor', label: 'Anchor', value: (link) => link.anchor, render: (link) => link.anchor },
    { key: 'tf', label: 'CF / TF', align: 'right', value: (link) => link.source_tf, render: (link) => `${link.source_cf ?? '–'} / ${link.source_tf ?? '–'}` },
    {
      key: 'remove',
      label: '',
      render: (link) => (
        <button type="button" disabled={unstar.busy} onClick={() => void unstar.run(link)}>
          Remove
        </button>
      ),
    },
  ];
  return (
    <section class="favourite-list">
      {unstar.problem && <ProblemBox problem={unstar.problem} />}
      <AsyncView state={list} what="the favourite list" onRetry={list.reload}>
        {(l) =>
          !l ? (
            <Empty>This favourite list does not exist (any more).</Empty>
          ) : (l.links ?? []).length === 0 ? (
            <Empty>No links left in the list of {l.domain}.</Empty>
          ) : (
            <>
              <h2>Favourite backlinks of {l.domain}</h2>
              <PlainTable label={`Favourite backlinks of ${l.domain}`} rows={l.links ?? []} columns={columns} rowKey={(link) => link._id} />
            </>
          )
        }
      </AsyncView>
    </section>
  );
}

/** Export stages as the API numbers them (BackLinkExport.state). */
