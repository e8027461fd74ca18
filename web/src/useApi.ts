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
  const lastDeps = useRef<unknown[] | null>(null);
  useEffect(() => {
    if (!load) {
      setState({ status: 'idle' });
      return;
    }
    const id = ++run.current;
    // A reload of the same call keeps the answer on screen until the new one arrives (no
    // flash of "Loading", and what the user had open below it, a tab or a form, stays open).
    const sameCall = lastDeps.current !== null && lastDeps.current.length === deps.length && lastDeps.current.every((d, i) => Object.is(d, deps[i]));
    lastDeps.current = deps;
    if (!sameCall) setState({ status: 'loading' });
    load().then(
      (data) => id === run.current && setState({ status: 'ready', data }),
      (err: unknown) => id === run.current && setState({ status: 'failed', problem: handleProblem(problemOf(err)) }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export interface Action<A extends unknown[], R> {
  /** Runs the work; answers its result, or undefined when it failed (the problem is then set). */
  run: (...args: A) => Promise<R | undefined>;
  busy: boolean;
  problem: Problem | null;
  clear: () => void;
}

/**
 * A write or on-demand call started by the user (add to a list, reset a SERP, create a tag):
 * busy while it runs, its problem kept for the screen to show. One hook for every form, so
 * each screen states only the call itself.
 */
export function useAction<A extends unknown[], R>(work: (...args: A) => Promise<R>): Action<A, R> {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const latest = useRef(work);
  latest.current = work;
  const run = useCallback(async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setProblem(null);
    try {
      return await latest.current(...args);
    } catch (err) {
      setProblem(handleProblem(problemOf(err)));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => setProblem(null), []);
  return { run, busy, problem, clear };
}
