// The signed-in user, the organizations they are a member of (with their environments), the CSRF
// token, and the organization and environment the pages work on (remembered in localStorage: ids
// only, never a key).
import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useMemo, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/react-query';
import { api, ApiError, rateLimitWaitMs, setCsrfToken, signInUrl } from './api.ts';

export interface SessionEnvironment {
  id: string;
  name: string;
  createdAt: string;
}

export interface SessionOrganization {
  id: string;
  name: string;
  environments: SessionEnvironment[];
}

export interface SessionInfo {
  user: { email: string; name: string | null; subject: string };
  organizations: SessionOrganization[];
  csrfToken: string;
  /** Whether this user may see the farm (operators). */
  operator: boolean;
}

export interface Session extends SessionInfo {
  org: SessionOrganization | undefined;
  env: SessionEnvironment | undefined;
  setOrg(id: string): void;
  setEnv(id: string): void;
  /** Fetches the session again (after an environment was created, for one). */
  reload(): Promise<unknown>;
}

const SessionContext = createContext<Session | undefined>(undefined);

export const sessionQueryKey = ['dashboard-session'];

const remembered = {
  get: (name: string) => localStorage.getItem(`kino.${name}`) ?? undefined,
  set: (name: string, value: string) => localStorage.setItem(`kino.${name}`, value),
};

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const query = useQuery({
    queryKey: sessionQueryKey,
    queryFn: () => api<SessionInfo>('/dashboard/api/session'),
    retry: false,
    // The server refreshes the provider's tokens as requests come; asking now and then keeps an
    // idle open page's session alive (and notices one that ended).
    refetchInterval: (q) => rateLimitWaitMs(q.state.error) ?? 60_000,
  });
  const [orgId, setOrgId] = useState(remembered.get('org'));
  const [envId, setEnvId] = useState(remembered.get('env'));

  useEffect(() => {
    setCsrfToken(query.data?.csrfToken);
  }, [query.data?.csrfToken]);

  const unauthenticated = query.error instanceof ApiError && query.error.status === 401;
  useEffect(() => {
    if (unauthenticated) location.assign(signInUrl());
  }, [unauthenticated]);

  const session = useMemo<Session | undefined>(() => {
    const info = query.data;
    if (!info) return undefined;
    const org = info.organizations.find((o) => o.id === orgId) ?? info.organizations[0];
    const env = org?.environments.find((e) => e.id === envId) ?? org?.environments[0];
    return {
      ...info,
      org,
      env,
      setOrg: (id) => {
        remembered.set('org', id);
        setOrgId(id);
      },
      setEnv: (id) => {
        remembered.set('env', id);
        setEnvId(id);
      },
      reload: () => query.refetch(),
    };
  }, [query.data, orgId, envId]);

  if (query.error && !unauthenticated) {
    const error = query.error;
    return (
      <main class="signed-out">
        <h1>Kino</h1>
        <p role="alert" data-testid="session-error">
          {error instanceof ApiError ? error.detail : String(error)}
        </p>
        <a href={signInUrl()}>Sign in again</a>
      </main>
    );
  }
  if (!session) return <main class="loading">Loading…</main>;
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** The session of the signed-in user; only inside SessionProvider (every page is). */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession() outside SessionProvider');
  return session;
}
