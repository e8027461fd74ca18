/** The clear states every screen shows: loading, empty, and each kind of problem. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Problem } from '../api';
import type { Async } from '../useApi';

export function Loading({ what }: { what: string }) {
  return (
    <div class="state loading" role="status" aria-live="polite">
      Loading {what}…
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="state empty">{children}</div>;
}

/** Seconds left of a wait, counting down once a second from when the problem was shown. */
function useCountdown(seconds: number): number {
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    setLeft(seconds);
    if (seconds <= 0) return;
    const started = Date.now();
    const timer = setInterval(() => {
      const remaining = Math.max(0, Math.ceil(seconds - (Date.now() - started) / 1000));
      setLeft(remaining);
      if (remaining === 0) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [seconds]);
  return left;
}

export function ProblemBox({ problem, onRetry }: { problem: Problem; onRetry?: () => void }) {
  const wait = useCountdown(problem.kind === 'RateLimit' ? Math.ceil(problem.retryAfter ?? 1) : problem.kind === 'Gateway' ? 1 : 0);
  let title: string;
  let detail: ComponentChildren = problem.message;
  switch (problem.kind) {
    case 'RateLimit':
      title = 'Slow down';
      detail = (
        <>
          Too many requests to this pool in a short time (the wait of {problem.retryAfter ?? 1} s was already tried once).{' '}
          <span data-wait={wait}>{wait > 0 ? `You can retry in ${wait} s.` : 'You can retry now.'}</span> <small>({problem.message})</small>
        </>
      );
      break;
    case 'CreditLimit':
      title = 'Quota spent';
      detail = (
        <>
          The {problem.pool ?? ''} quota of your plan is used up. See <a href="/app/account">Account</a> for when it resets.
        </>
      );
      break;
    case 'Gateway':
      title = 'Too many requests';
      break;
    case 'NotFound':
      title = 'Not found';
      break;
    case 'Invalid':
      title = 'Not accepted';
      break;
    case 'Auth':
      title = 'Signed out';
      break;
    default:
      title = 'Something went wrong';
  }
  return (
    <div class={`state problem problem-${problem.kind}`} role="alert" data-problem={problem.kind}>
      <strong>{title}</strong> <span>{detail}</span>
      {onRetry && (
        <button type="button" onClick={onRetry} disabled={wait > 0}>
          {wait > 0 ? `Retry in ${wait} s` : 'Retry'}
        </button>
      )}
    </div>
  );
}

/** Renders an async state: loading, problem, or the ready content. */
export function AsyncView<T>({
  state,
  what,
  children,
  onRetry,
}: {
  state: Async<T>;
  what: string;
  children: (data: T) => ComponentChildren;
  onRetry?: () => void;
}) {
  if (state.status === 'idle') return null;
  if (state.status === 'loading') return <Loading what={what} />;
  if (state.status === 'failed') return <ProblemBox problem={state.problem} onRetry={onRetry} />;
  return <>{children(state.data)}</>;
}
