/**
 * The dashboard shell: checks the session, shows the navigation and loads each page's code
 * on first visit (the first load stays small: the sign-in page and the shell).
 */
import { render, type ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { currentSession, onWait, signOut, type SessionInfo } from './api';
import { linkClick, navigate, useLocation } from './router';
import { SignIn } from './pages/SignIn';
import { Loading } from './components/States';
import type { WaitEvent } from '@quarry/client';
import './styles.css';

type PageModule = { default: ComponentType<{ session: SessionInfo }> };

const PAGES: { path: string; label: string; title: string; load: () => Promise<PageModule> }[] = [
  { path: '/app/keywords', label: 'Keywords', title: 'Keyword research', load: () => import('./pages/Keywords') },
  { path: '/app/serp', label: 'SERP', title: 'SERP analysis', load: () => import('./pages/Serp') },
  { path: '/app/lists', label: 'Lists', title: 'Keyword lists', load: () => import('./pages/Lists') },
  { path: '/app/backlinks', label: 'Backlinks', title: 'Backlinks', load: () => import('./pages/Backlinks') },
  { path: '/app/site', label: 'Site profile', title: 'Site profile', load: () => import('./pages/Site') },
  { path: '/app/tracking', label: 'Rank tracking', title: 'Rank tracking', load: () => import('./pages/Tracking') },
  { path: '/app/answers', label: 'AI answers', title: 'AI answers', load: () => import('./pages/Answers') },
  { path: '/app/account', label: 'Account', title: 'Account', load: () => import('./pages/Account') },
];

/**
 * The tab's title: what is looked at (a keyword, a site), the page, the product. Each page and
 * each subject gets its own, so that tabs, history and bookmarks tell them apart.
 */
function pageTitle(page: string | null, query: URLSearchParams): string {
  const subject = (query.get('kw') ?? query.get('url') ?? query.get('domain') ?? '').trim();
  return [subject ? `“${subject.slice(0, 60)}”` : null, page, 'Quarry'].filter(Boolean).join(' · ');
}

function pageFor(path: string) {
  return PAGES.find((p) => path === p.path || path.startsWith(`${p.path}/`));
}

function LazyPage({ page, session }: { page: (typeof PAGES)[number]; session: SessionInfo }) {
  const [mod, setMod] = useState<PageModule | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    setMod(null);
    page.load().then(setMod, (err: unknown) => setFailed(String(err)));
  }, [page]);
  if (failed) return <div class="state problem">This page could not be loaded: {failed}</div>;
  if (!mod) return <Loading what="page" />;
  const Page = mod.default;
  return <Page session={session} />;
}

function WaitBanner() {
  const [event, setEvent] = useState<WaitEvent | null>(null);
  useEffect(() => onWait(setEvent), []);
  if (!event) return null;
  return (
    <div class="wait-banner" role="status" data-wait={event.reason}>
      {event.reason === 'RateLimit' ? 'Rate limit reached' : 'Busy'}: waiting {Math.ceil(event.ms / 1000)} s before retrying…
    </div>
  );
}

function App() {
  const loc = useLocation();
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  useEffect(() => {
    // The sign-in page needs no session (and asking would only log a 401 in the console).
    if (location.pathname.startsWith('/app/sign-in')) setSession(null);
    else currentSession().then(setSession, () => setSession(null));
  }, []);

  const signingIn = loc.path === '/app/sign-in' || session === null;
  const current = signingIn ? null : pageFor(loc.path);
  const title = signingIn ? pageTitle('Sign in', new URLSearchParams()) : pageTitle(current?.title ?? null, loc.query);
  useEffect(() => {
    document.title = title;
  }, [title]);

  if (signingIn) {
    const next = loc.query.get('next');
    return (
      <SignIn
        onSignedIn={(s) => {
          setSession(s);
          navigate(next && next.startsWith('/app') && !next.startsWith('/app/sign-in') ? next : '/app/keywords', true);
        }}
      />
    );
  }
  if (session === undefined) return <Loading what="session" />;
  const page = current;
  if (!page) {
    navigate('/app/keywords', true);
    return null;
  }
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="/app/keywords" onClick={linkClick}>
          Quarry
        </a>
        <nav>
          {PAGES.map((p) => (
            <a key={p.path} href={p.path} onClick={linkClick} class={p === page ? 'active' : ''} aria-current={p === page ? 'page' : undefined}>
              {p.label}
            </a>
          ))}
        </nav>
        <span class="who" title={session.account.id}>
          {session.account.email} · {session.account.plan}
        </span>
        <button
          type="button"
          class="sign-out"
          onClick={async () => {
            await signOut();
            setSession(null);
            navigate('/app/sign-in', true);
          }}
        >
          Sign out
        </button>
      </header>
      <WaitBanner />
      <main>
        <LazyPage page={page} session={session} />
      </main>
      <footer class="demo-note">Sandbox data: the default research engine is a generated demo web.</footer>
    </div>
  );
}

render(<App />, document.getElementById('root')!);
