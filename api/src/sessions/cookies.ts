// The dashboard's cookies. The session cookie reaches the whole origin (the dashboard calls
// /v1/api with it); it is httpOnly, SameSite=Lax, and Secure (with the __Host- prefix, which
// browsers only accept from https, on path /, without Domain) unless the dashboard is plain http
// on loopback.
import type { CookieSerializeOptions } from '@fastify/cookie';
import { isLoopbackUrl } from '../config.ts';

export interface DashboardCookies {
  session: { name: string; options: CookieSerializeOptions };
  /** The sign-in in progress (state, nonce, PKCE verifier), signed, for the callback only. */
  signIn: { name: string; options: CookieSerializeOptions };
}

export function dashboardCookies(dashboardUrl: string): DashboardCookies {
  const secure = !(new URL(dashboardUrl).protocol === 'http:' && isLoopbackUrl(dashboardUrl));
  const prefix = secure ? '__Host-' : '';
  return {
    session: { name: `${prefix}kino_session`, options: { path: '/', httpOnly: true, sameSite: 'lax', secure } },
    signIn: {
      name: `${prefix}kino_sign_in`,
      // SameSite=Lax still comes back on the provider's top-level redirect to the callback.
      options: { path: '/', httpOnly: true, sameSite: 'lax', secure, signed: true, maxAge: 600 },
    },
  };
}
