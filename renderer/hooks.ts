import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { EventMessage, Input, Job, OperationName, Output } from '../shared/api';
import { call, subscribe } from './api';

export interface ApiState<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Counts `data:changed` events, so views refetch after an import or export finishes. */
let dataVersion = 0;
const versionListeners = new Set<() => void>();
subscribe((message) => {
  if (message.name === 'data:changed') {
    dataVersion++;
    versionListeners.forEach((l) => l());
  }
});
export function useDataVersion(): number {
  return useSyncExternalStore(
    (listener) => {
      versionListeners.add(listener);
      return () => versionListeners.delete(listener);
    },
    () => dataVersion,
  );
}

/**
 * Calls an operation and keeps its latest answer. Refetches when the input changes or when the
 * data changes; an answer that arrives after a newer request started is dropped.
 */
export function useApi<K extends OperationName>(name: K, input: Input<K> | null): ApiState<Output<K>> {
  const [state, setState] = useState<{ data?: Output<K>; error?: Error; loading: boolean }>({ loading: input !== null });
  const [nonce, setNonce] = useState(0);
  const version = useDataVersion();
  const key = input === null ? null : JSON.stringify(input);
  const latest = useRef(0);
  useEffect(() => {
    if (key === null) return;
    const request = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    call(name, JSON.parse(key) as Input<K>).then(
      (data) => request === latest.current && setState({ data, loading: false }),
      (error: Error) => request === latest.current && setState({ error, loading: false }),
    );
  }, [name, key, nonce, version]);
  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** The jobs that are running or finished recently, kept current by events. */
export function useJobs(): Job[] {
  const [jobs, setJobs] = useState<Map<string, Job>>(new Map());
  useEffect(() => {
    call('job:list', {}).then(
      (list) => setJobs(new Map(list.map((j) => [j.id, j]))),
      () => undefined,
    );
    return subscribe((message: EventMessage) => {
      if (message.name !== 'job:progress' && message.name !== 'job:done') return;
      const job = message.payload as Job;
      setJobs((current) => new Map(current).set(job.id, job));
    });
  }, []);
  return [...jobs.values()];
}

/** Keyboard shortcuts that stay quiet while the user types in a field. */
export function useKeys(handler: (event: KeyboardEvent) => void, enabled = true): void {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (!enabled) return;
    const listener = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing =
        target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
      if (typing && event.key !== 'Escape') return;
      ref.current(event);
    };
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, [enabled]);
}

export type Theme = 'light' | 'dark' | 'system';

export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem('awb.theme') as Theme | null) ?? 'system');
  useEffect(() => {
    const apply = () => {
      const dark = theme === 'dark' || (theme === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
      document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    };
    apply();
    localStorage.setItem('awb.theme', theme);
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [theme]);
  return [theme, setTheme];
}
