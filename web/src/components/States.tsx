/** The clear states every screen shows: loading, empty, and each kind of problem. */
import type { ComponentChildren } from 'preact';
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

export function ProblemBox({ problem, onRetry }: { problem: Problem; onRetry?: () => void }) {
  let title: string;
  let detail: ComponentChildren = problem.message;
  switch (problem.kind) {
    case 'RateLimit':
      title = 'Slow down';
      detail = (
        <>
          Too many requests to this pool in a short time. Wait {problem.retryAfter ?? 1} s and retry. <small>({problem.message})</small>
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
        <button type="button" onClick={onRetry}>
          Retry
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
