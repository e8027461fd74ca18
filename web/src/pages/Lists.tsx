/** Keyword lists: all lists, one list's keywords (remove, rename, delete) and its CSV download. */
import { useState } from 'preact/hooks';
import { api, data, saveFile } from '../api';
import { listCsv } from '../listCsv';
import { useAction, useApi } from '../useApi';
import { href, linkClick, navigate, useLocation } from '../router';
import { AsyncView, Empty, ProblemBox } from '../components/States';
import { VirtualTable } from '../components/VirtualTable';
import type { KeywordItem, KeywordList } from '../types';

export default function Lists() {
  const loc = useLocation();
  const id = loc.path.startsWith('/app/lists/') ? decodeURIComponent(loc.path.slice('/app/lists/'.length)) : null;
  return id ? <ListDetail id={id} /> : <AllLists />;
}

function AllLists() {
  const lists = useApi(() => data<KeywordList[]>(api.GET('/keyword-tool/lists')), []);
  return (
    <div class="page lists">
      <h1>Keyword lists</h1>
      <AsyncView state={lists} what="your lists" onRetry={lists.reload}>
        {(all) =>
          all.length === 0 ? (
            <Empty>
              No lists yet. Select keywords in <a href="/app/keywords">keyword research</a> and add them to a new list.
            </Empty>
          ) : (
            <table class="plain">
              <thead>
                <tr>
                  <th>Name</th>
                  <th class="right">Keywords</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {all.map((l) => (
                  <tr key={l._id}>
                    <td>
                      <a href={href(`/app/lists/${l._id}`)} onClick={linkClick}>
                        {l.name}
                      </a>
                    </td>
                    <td class="right">{l.keyword_ids.length}</td>
                    <td>{new Date(l.updated_at * 1000).toLocaleString('en')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </AsyncView>
    </div>
  );
}

function ListDetail({ id }: { id: string }) {
  const detail = useApi(
    () => data<{ list: KeywordList; keywords: KeywordItem[] }>(api.GET('/keyword-tool/lists/{list_id}', { params: { path: { list_id: id } } })),
    [id],
  );
  const [checked, setChecked] = useState<Set<string>>(new Set());
  const action = useAction(async (work: () => Promise<unknown>) => {
    await work();
    setChecked(new Set());
    detail.reload();
  });
  const act = action.run;
  const problem = action.problem;
  return (
    <div class="page list-detail">
      <p>
        <a href="/app/lists" onClick={linkClick}>
          ← All lists
        </a>
      </p>
      {problem && <ProblemBox problem={problem} />}
      <AsyncView state={detail} what="the list" onRetry={detail.reload}>
        {({ list, keywords }) => (
          <>
            <h1>{list.name}</h1>
            <div class="actions">
              <button
                type="button"
                onClick={() =>
                  // Readable headers and a column per month, from the list already loaded (listCsv.ts).
                  saveFile(new Blob([listCsv(keywords)], { type: 'text/csv;charset=utf-8' }), `${list.name.replace(/[^\w .-]+/g, '-')}.csv`)
                }
              >
                Download CSV
              </button>
              <button
                type="button"
                disabled={checked.size === 0}
                onClick={() =>
                  act(() =>
                    api.DELETE('/keyword-tool/lists/{list_id}/keywords', { params: { path: { list_id: list._id } }, body: { keyword_ids: [...checked] } }),
                  )
                }
              >
                Remove {checked.size} selected
              </button>
              <button
                type="button"
                onClick={() => {
                  const name = prompt('New name of the list', list.name);
                  if (name && name.trim())
                    void act(() => api.PATCH('/keyword-tool/lists/{list_id}', { params: { path: { list_id: list._id } }, body: { name: name.trim() } }));
                }}
              >
                Rename
              </button>
              <button
                type="button"
                class="danger"
                onClick={() => {
                  if (confirm(`Delete the list “${list.name}”?`))
                    void act(async () => {
                      await api.DELETE('/keyword-tool/lists/{list_id}', { params: { path: { list_id: list._id } } });
                      navigate('/app/lists', true);
                    });
                }}
              >
                Delete list
              </button>
            </div>
            {keywords.length === 0 ? (
              <Empty>This list is empty.</Empty>
            ) : (
              <VirtualTable
                label="List keywords"
                rows={keywords}
                rowKey={(k) => k._id}
                columns={[
                  {
                    key: 'pick',
                    label: '',
                    width: '32px',
                    render: (k) => (
                      <input
                        type="checkbox"
                        aria-label={`Select ${k.kw}`}
                        checked={checked.has(k._id)}
                        onChange={() =>
                          setChecked((prev) => {
                            const next = new Set(prev);
                            if (next.has(k._id)) next.delete(k._id);
                            else next.add(k._id);
                            return next;
                          })
                        }
                      />
                    ),
                  },
                  { key: 'kw', label: 'Keyword', width: '2fr', render: (k) => k.kw },
                  { key: 'sv', label: 'Volume', align: 'right', width: '90px', render: (k) => k.sv.toLocaleString('en') },
                  { key: 'seo', label: 'KD', align: 'right', width: '56px', render: (k) => k.seo ?? '–' },
                  { key: 'cpc', label: 'CPC', align: 'right', width: '70px', render: (k) => (k.cpc === null ? '–' : `$${k.cpc.toFixed(2)}`) },
                ]}
              />
            )}
          </>
        )}
      </AsyncView>
    </div>
  );
}
