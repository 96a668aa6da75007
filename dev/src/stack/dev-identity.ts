// The dev stack's sign-in for the dashboard: its identity provider's client and users. The dev user
// is a member of the dev organization (what `kino admin member add` runs); the outsider is a member of
// nothing (tests prove such a user is refused).
import type { DevIdentityUser } from '../index.ts';

export const devDashboardClientId = 'kino-dashboard';

export const devUser: DevIdentityUser = { email: 'dev@kino.local', password: 'kino-dev', name: 'Dev User' };

export const outsiderUser: DevIdentityUser = {
  email: 'outsider@kino.local',
  password: 'kino-outsider',
  name: 'Outsider',
};
