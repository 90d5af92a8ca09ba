import { useCallback, useEffect, useState } from 'react';
import { api, ApiFailure } from './client';

interface Loaded<T> {
  key: string;
  data?: T;
  error?: ApiFailure;
}

/**
 * GETs `path` (null: nothing yet) and re-fetches when it changes or on reload(). `loading`
 * is derived from whether the answer held is the answer to the current request.
 */
export function useApi<T>(path: string | null) {
  const [version, setVersion] = useState(0);
  const key = `${version}:${path ?? ''}`;
  const [loaded, setLoaded] = useState<Loaded<T>>({ key: '' });

  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    api<T>(path, { signal: controller.signal }).then(
      (data) => setLoaded({ key, data }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoaded({ key, error: toFailure(error) });
      },
    );
    return () => controller.abort();
  }, [path, key]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const current = loaded.key === key;
  return {
    // Keep showing the previous answer while the next one loads, so tables do not flicker.
    data: loaded.data,
    error: current ? loaded.error : undefined,
    loading: path !== null && !current,
    reload,
  };
}

export function toFailure(error: unknown): ApiFailure {
  if (error instanceof ApiFailure) return error;
  return new ApiFailure(0, 'Herald could not be reached. Check your connection and try again.');
}

/** `value`, once it has stopped changing for `ms` (for live previews and counts). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * POSTs `body` to a computing endpoint (a preview, a count) whenever the body changes;
 * undefined sends nothing. The last answer stays visible while the next one loads.
 */
export function useLiveResult<T>(path: string, body: unknown) {
  const key = body === undefined ? '' : JSON.stringify(body);
  const [loaded, setLoaded] = useState<Loaded<T>>({ key: '' });

  useEffect(() => {
    if (!key) return;
    const controller = new AbortController();
    api<T>(path, {
      method: 'POST',
      body: JSON.parse(key) as unknown,
      signal: controller.signal,
    }).then(
      (data) => setLoaded({ key, data }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setLoaded({ key, error: toFailure(error) });
      },
    );
    return () => controller.abort();
  }, [path, key]);

  const current = loaded.key === key;
  return {
    data: loaded.error ? undefined : loaded.data,
    error: current ? loaded.error : undefined,
    loading: key !== '' && !current,
  };
}
