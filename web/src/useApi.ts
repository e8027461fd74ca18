/** Loading / ready / failed state of one API call, re-run when its inputs change. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { problemOf, type Problem } from './api';
import { navigate } from './router';

export type Async<T> = { status: 'idle' } | { status: 'loading' } | { status: 'ready'; data: T } | { status: 'failed'; problem: Problem };

/** A session that ended (expired, signed out elsewhere, key revoked) sends the user to sign in. */
export function handleProblem(problem: Problem): Problem {
  if (problem.kind === 'Auth') navigate(`/app/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, true);
  return problem;
}

export function useApi<T>(load: (() => Promise<T>) | null, deps: unknown[]): Async<T> & { reload: () => void } {
  const [state, setState] = useState<Async<T>>({ status: load ? 'loading' : 'idle' });
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    if (!load) {
      setState({ status: 'idle' });
      return;
    }
    const id = ++run.current;
    setState({ status: 'loading' });
    load().then(
      (data) => id === run.current && setState({ status: 'ready', data }),
      (err: unknown) => id === run.current && setState({ status: 'failed', problem: handleProblem(problemOf(err)) }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
