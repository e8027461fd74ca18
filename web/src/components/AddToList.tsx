/** Adds keywords to one of the account's lists, or to a new list. */
import { useState } from 'preact/hooks';
import { api, data } from '../api';
import { useAction, useApi } from '../useApi';
import { ProblemBox } from './States';
import type { KeywordList } from '../types';
import { Form, Input, Select } from './Form';

export function AddToList({ keywordIds, onDone }: { keywordIds: string[]; onDone?: (list: KeywordList) => void }) {
  const lists = useApi(() => data<KeywordList[]>(api.GET('/keyword-tool/lists')), []);
  const [target, setTarget] = useState('new');
  const [name, setName] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const existing = lists.status === 'ready' ? lists.data : [];
  const add = useAction(async () => {
    setDone(null);
    let list: KeywordList;
    if (target === 'new') {
      list = await data<KeywordList>(api.POST('/keyword-tool/lists', { body: { name: name.trim() || 'New list', keyword_ids: keywordIds } }));
    } else {
      await api.POST('/keyword-tool/lists/{list_id}/keywords', { params: { path: { list_id: target } }, body: { keyword_ids: keywordIds } });
      list = existing.find((l) => l._id === target)!;
    }
    setDone(`Added ${keywordIds.length} keyword${keywordIds.length === 1 ? '' : 's'} to “${list.name}”.`);
    lists.reload();
    onDone?.(list);
  });
  return (
    <Form class="add-to-list" onSubmit={() => void add.run()}>
      <Select value={target} onValue={setTarget} aria-label="List">
        <option value="new">New list…</option>
        {existing.map((l) => (
          <option key={l._id} value={l._id}>
            {l.name} ({l.keyword_ids.length})
          </option>
        ))}
      </Select>
      {target === 'new' && <Input placeholder="List name" value={name} maxLength={100} onValue={setName} aria-label="New list name" />}
      <button type="submit" disabled={add.busy || keywordIds.length === 0}>
        Add {keywordIds.length} to list
      </button>
      {done && (
        <span class="ok" role="status">
          {done}
        </span>
      )}
      {add.problem && <ProblemBox problem={add.problem} />}
    </Form>
  );
}
