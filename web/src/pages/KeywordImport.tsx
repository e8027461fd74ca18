/**
 * Keyword import: the user's own keywords (pasted, one per line) looked up in a location
 * (POST /keyword-tool/keyword-imports: volume, history, KD, CPC of each), shown in the same
 * filterable, sortable table as related keywords. Each import is one lookup of the
 * related-keywords pool (no cache); its size is the plan's related-keywords-rows at most.
 */
import { useState } from 'preact/hooks';
import { api, data } from '../api';
import { useAction } from '../useApi';
import { Empty, ProblemBox } from '../components/States';
import { LocationPicker } from '../components/LocationPicker';
import { Form } from '../components/Form';
import { KeywordWorkbench } from '../components/KeywordWorkbench';
import type { KeywordItem } from '../types';

interface ImportAnswer {
  keywords: KeywordItem[];
  countKeywordsBeforeLimit: number;
  location: { label: string };
}

export function KeywordImport({ locationId }: { locationId: number }) {
  const [text, setText] = useState('');
  const [loc, setLoc] = useState(locationId);
  const [answer, setAnswer] = useState<{ result: ImportAnswer; loc: number } | null>(null);
  const words = text
    .split(/\r?\n|,/)
    .map((k) => k.trim())
    .filter(Boolean);
  const unique = [...new Set(words.map((w) => w.toLowerCase()))];
  const run = useAction(async () => {
    const result = await data<ImportAnswer>(api.POST('/keyword-tool/keyword-imports', { body: { keywords: unique, location_id: loc, language_id: 0 } }));
    setAnswer({ result, loc });
  });
  return (
    <>
      <Form class="import-form" onSubmit={() => void run.run()}>
        <label>
          Keywords to import, one per line
          <textarea rows={6} value={text} maxLength={200_000} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
        </label>
        <div class="search">
          <LocationPicker value={loc} onChange={setLoc} />
          <button type="submit" disabled={run.busy || unique.length === 0}>
            {run.busy ? 'Importing…' : `Import ${unique.length} keyword${unique.length === 1 ? '' : 's'}`}
          </button>
          <span class="muted">One lookup of the related-keywords pool per import.</span>
        </div>
      </Form>
      {run.problem && <ProblemBox problem={run.problem} />}
      {answer &&
        (answer.result.keywords.length === 0 ? (
          <Empty>None of these keywords is known in this location.</Empty>
        ) : (
          <KeywordWorkbench answer={answer.result} locationId={answer.loc} seeded={false} label="Imported keywords" />
        ))}
    </>
  );
}
