import { createContext, ReactNode, useCallback, useContext, useEffect, useState } from 'react';
import { api, onSignedOut, setCsrfToken } from './api/client';
import { toFailure } from './api/hooks';
import type { SessionView } from './api/types';

interface SessionState {
  /** undefined while the first probe is under way. */
  session: SessionView | undefined;
  probeError: string | undefined;
  /** Takes the answer of sign-in or sign-up as the new session. */
  adopt(session: SessionView): void;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionView>();
  const [probeError, setProbeError] = useState<string>();

  const adopt = useCallback((next: SessionView) => {
    setCsrfToken(next.csrf_token);
    setSession(next);
    setProbeError(undefined);
  }, []);

  const refresh = useCallback(async () => {
    try {
      adopt(await api<SessionView>('/session'));
    } catch (error) {
      setProbeError(toFailure(error).message);
    }
  }, [adopt]);

  const signOut = useCallback(async () => {
    await api('/signout', { method: 'POST' });
    await refresh();
  }, [refresh]);

  useEffect(() => {
    let live = true;
    api<SessionView>('/session').then(
      (first) => live && adopt(first),
      (error: unknown) => live && setProbeError(toFailure(error).message),
    );
    const unsubscribe = onSignedOut(() => void refresh());
    return () => {
      live = false;
      unsubscribe();
    };
  }, [adopt, refresh]);

  return (
    <SessionContext.Provider value={{ session, probeError, adopt, refresh, signOut }}>
      {children}
    </SessionContext.Provider>
  );
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}
