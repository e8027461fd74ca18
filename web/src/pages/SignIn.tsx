/** Sign-in: the API key is exchanged for a session cookie and then forgotten. */
import { useState } from 'preact/hooks';
import { signIn, type SessionInfo } from '../api';

export function SignIn({ onSignedIn }: { onSignedIn: (s: SessionInfo) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <div class="sign-in">
      <h1>Quarry</h1>
      <p>Keyword, SERP, backlink and rank research.</p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const form = e.currentTarget as HTMLFormElement;
          const input = form.elements.namedItem('key') as HTMLInputElement;
          setBusy(true);
          setError(null);
          try {
            const session = await signIn(input.value);
            // The key leaves the page: only the httpOnly session cookie remains.
            input.value = '';
            onSignedIn(session);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>
          API key
          <input name="key" type="password" autocomplete="off" required maxLength={200} placeholder="qry_…" />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {error && (
          <div class="state problem" role="alert">
            {error}
          </div>
        )}
      </form>
    </div>
  );
}
