// The layout (navigation, organization and environment pickers, the user and sign-out) and the
// routes. Every page path lives under /dashboard/; the server answers each with index.html.
import { LocationProvider, Router, Route, useLocation } from 'preact-iso';
import { useEffect } from 'preact/hooks';
import { api, ApiError } from './api.ts';
import { useSession } from './session.tsx';
import { useLiveUpdates } from './live-updates.ts';
import { VideosPage } from './pages/videos/index.tsx';
import { VideoPage } from './pages/videos/video.tsx';
import { AnalyticsPage } from './pages/analytics/index.tsx';
import { KeysPage } from './pages/keys.tsx';
import { EnvironmentsPage } from './pages/environments.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { LivePage } from './pages/live.tsx';
import { LiveStreamPage } from './pages/live-stream.tsx';
import { FarmPage } from './pages/farm.tsx';
import { ToastProvider } from './components/toasts.tsx';

export const BASE = '/dashboard';

const nav: { path: string; label: string; operatorsOnly?: boolean }[] = [
  { path: `${BASE}/videos`, label: 'Videos' },
  { path: `${BASE}/live`, label: 'Live' },
  { path: `${BASE}/analytics`, label: 'Analytics' },
  { path: `${BASE}/keys`, label: 'API keys' },
  { path: `${BASE}/environments`, label: 'Environments' },
  { path: `${BASE}/webhooks`, label: 'Webhooks' },
  { path: `${BASE}/farm`, label: 'Farm', operatorsOnly: true },
];

function Redirect({ to }: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(to, true), [to]);
  return null;
}

/** Ends the session, then the provider's (its sign-out page comes back to /dashboard/auth/signed-out). */
async function signOut(): Promise<void> {
  try {
    const { redirectTo } = await api<{ redirectTo: string }>(`${BASE}/auth/logout`, { method: 'POST' });
    location.assign(redirectTo);
  } catch (error) {
    // Already ended (expired, refused by the provider): nothing left to end here.
    if (error instanceof ApiError && error.status === 401) location.assign(`${BASE}/auth/signed-out`);
    else throw error;
  }
}

function Pickers() {
  const session = useSession();
  if (!session.org) return null;
  return (
    <div class="pickers">
      <label>
        Organization{' '}
        <select data-testid="org-picker" value={session.org.id} onChange={(e) => session.setOrg(e.currentTarget.value)}>
          {session.organizations.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Environment{' '}
        <select
          data-testid="env-picker"
          value={session.env?.id ?? ''}
          onChange={(e) => session.setEnv(e.currentTarget.value)}
        >
          {session.org.environments.map((e) => (
            <option key={e.id} value={e.id}>
              {e.name}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

function Layout() {
  const session = useSession();
  const { path } = useLocation();
  useLiveUpdates(session.org?.id);
  return (
    <div class="layout">
      <header>
        <a class="brand" href={`${BASE}/videos`}>
          Kino
        </a>
        <Pickers />
        <span class="user" data-testid="user">
          {session.user.email}
        </span>
        <button type="button" class="link" data-testid="sign-out" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav>
        {nav
          // Every page is an organization's (the farm too sits in the same layout): none without one.
          .filter((item) => session.org && (!item.operatorsOnly || session.operator))
          .map((item) => (
            <a key={item.path} href={item.path} class={path.startsWith(item.path) ? 'active' : ''}>
              {item.label}
            </a>
          ))}
      </nav>
      <main>
        {session.org ? (
          <Router>
            <Route path={`${BASE}/videos`} component={VideosPage} />
            <Route path={`${BASE}/videos/:publicID`} component={VideoPage} />
            <Route path={`${BASE}/live`} component={LivePage} />
            <Route path={`${BASE}/live/:liveStreamId`} component={LiveStreamPage} />
            <Route path={`${BASE}/analytics`} component={AnalyticsPage} />
            <Route path={`${BASE}/keys`} component={KeysPage} />
            <Route path={`${BASE}/environments`} component={EnvironmentsPage} />
            <Route path={`${BASE}/webhooks`} component={WebhooksPage} />
            <Route path={`${BASE}/farm`} component={FarmPage} />
            <Route default component={() => <Redirect to={`${BASE}/videos`} />} />
          </Router>
        ) : (
          <section class="not-member" data-testid="not-member">
            <h1>No organization</h1>
            <p>
              {session.user.email} is signed in but is not a member of any organization. An operator adds members with{' '}
              <code>kino admin member add</code>.
            </p>
          </section>
        )}
      </main>
    </div>
  );
}

export function App() {
  return (
    <LocationProvider>
      <ToastProvider>
        <Layout />
      </ToastProvider>
    </LocationProvider>
  );
}
