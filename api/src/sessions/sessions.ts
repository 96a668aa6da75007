// Dashboard sessions, kept server-side: the browser's cookie holds an opaque random id, the table
// its SHA-256 with the provider's tokens. A session refreshes its access token itself when a
// request finds it near expiry, and ends at sign-out, when the provider refuses a refresh, or
// after DASHBOARD_SESSION_IDLE_HOURS unused.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '@kino/infra';
import type { Db, DashboardSession } from '@kino/database';
import {
  deleteDashboardSession,
  deleteDashboardSessionsIdleSince,
  findDashboardSession,
  insertDashboardSession,
  touchDashboardSession,
  updateDashboardSessionTokens,
  normalizeEmail,
  organizationIdsOfMember,
} from '@kino/database/repositories';
import { RefreshRefusedError, type OidcClient, type ProviderTokens } from './oidc.ts';

/** Refresh this long before the access token expires, so no request meets an expired one. */
const REFRESH_MARGIN_MS = 60_000;
/** last_seen_at is written at most this often per session (one UPDATE per minute, not per request). */
const TOUCH_INTERVAL_MS = 60_000;

/** The signed-in user as the rest of the API sees them. */
export interface DashboardUser {
  /** The hash of the session id: what CSRF tokens are bound to. */
  sessionIdHash: string;
  subject: string;
  email: string;
  name: string | null;
  /** Organization ids from the provider's claim (OIDC_ORGANIZATIONS_CLAIM). */
  claimedOrgIds: string[];
  /** The organizations this user reaches, read for this request: membership is checked on every request. */
  organizationIds: Set<string>;
}

/** The ID token did not carry what a session needs. */
export class SignInRefusedError extends Error {
  override name = 'SignInRefusedError';
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

export interface DashboardSessionsOptions {
  db: Db;
  oidc: OidcClient;
  secret: string;
  idleMs: number;
  organizationsClaim: string | undefined;
  logger: Logger;
  now?: () => Date;
}

export class DashboardSessions {
  /** Refreshes in flight per session: parallel requests share one (a rotated refresh token is single-use). */
  private readonly refreshing = new Map<string, Promise<DashboardSession | undefined>>();
  private readonly now: () => Date;

  private readonly options: DashboardSessionsOptions;
  constructor(options: DashboardSessionsOptions) {
    this.options = options;
    this.now = options.now ?? (() => new Date());
  }

  /** Starts a session from a finished sign-in; returns the id for the cookie. */
  async create(tokens: ProviderTokens): Promise<string> {
    const claims = tokens.claims ?? {};
    const email = typeof claims.email === 'string' ? claims.email : undefined;
    if (!email) throw new SignInRefusedError('The identity provider sent no e-mail address (ask for the email scope).');
    // An address the provider has not verified could be anyone's: membership is by address.
    if (claims.email_verified === false)
      throw new SignInRefusedError(`The identity provider has not verified ${email}.`);
    const id = randomBytes(32).toString('base64url');
    await insertDashboardSession(this.options.db, {
      id_hash: hashSessionId(id),
      subject: String(claims.sub),
      email: normalizeEmail(email),
      name: typeof claims.name === 'string' ? claims.name : null,
      claimed_org_ids: this.claimedOrgIds(claims),
      access_token: tokens.accessToken,
      refresh_token: tokens.refreshToken ?? null,
      id_token: tokens.idToken ?? null,
      access_expires_at: tokens.accessExpiresAt,
    });
    return id;
  }

  /** The user of a live session, refreshing its tokens when due; undefined when the session ended. */
  async authenticate(sessionId: string): Promise<DashboardUser | undefined> {
    const idHash = hashSessionId(sessionId);
    let session = await findDashboardSession(this.options.db, idHash);
    if (!session) return undefined;
    const now = this.now();
    if (now.getTime() - session.last_seen_at.getTime() > this.options.idleMs) {
      await deleteDashboardSession(this.options.db, idHash);
      return undefined;
    }
    if (session.access_expires_at.getTime() - now.getTime() < REFRESH_MARGIN_MS) {
      session = await this.refreshOnce(session);
      if (!session) return undefined;
    }
    if (now.getTime() - session.last_seen_at.getTime() > TOUCH_INTERVAL_MS) {
      await touchDashboardSession(this.options.db, idHash, now);
    }
    const members = await organizationIdsOfMember(this.options.db, session.email);
    return {
      sessionIdHash: idHash,
      subject: session.subject,
      email: session.email,
      name: session.name,
      claimedOrgIds: session.claimed_org_ids,
      // Members by address, and those the provider's claim lists.
      organizationIds: new Set([...members, ...session.claimed_org_ids]),
    };
  }

  /** Ends a session; returns its ID token (for the provider's sign-out), if it had one. */
  async end(sessionId: string): Promise<string | undefined> {
    const ended = await deleteDashboardSession(this.options.db, hashSessionId(sessionId));
    return ended?.id_token ?? undefined;
  }

  /** The CSRF token of a session: an HMAC of its id, so nothing else needs storing. */
  csrfToken(user: DashboardUser): string {
    return createHmac('sha256', this.options.secret).update(`csrf:${user.sessionIdHash}`).digest('base64url');
  }

  checkCsrfToken(user: DashboardUser, presented: string | undefined): boolean {
    if (!presented) return false;
    const expected = Buffer.from(this.csrfToken(user));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Drops idle sessions (any instance may; the delete is idempotent). */
  async sweep(): Promise<number> {
    return deleteDashboardSessionsIdleSince(this.options.db, new Date(this.now().getTime() - this.options.idleMs));
  }

  private refreshOnce(session: DashboardSession): Promise<DashboardSession | undefined> {
    let pending = this.refreshing.get(session.id_hash);
    if (!pending) {
      pending = this.refresh(session).finally(() => this.refreshing.delete(session.id_hash));
      this.refreshing.set(session.id_hash, pending);
    }
    return pending;
  }

  private async refresh(session: DashboardSession): Promise<DashboardSession | undefined> {
    const { db, oidc, logger } = this.options;
    if (!session.refresh_token) {
      // No refresh token (the provider gave none): the session lasts as long as its access token.
      if (session.access_expires_at.getTime() > this.now().getTime()) return session;
      await deleteDashboardSession(db, session.id_hash);
      return undefined;
    }
    let tokens: ProviderTokens;
    try {
      tokens = await oidc.refresh(session.refresh_token);
    } catch (error) {
      if (error instanceof RefreshRefusedError) {
        logger.info(
          { subject: session.subject, reason: error.message },
          'the identity provider refused a refresh: session ended',
        );
        await deleteDashboardSession(db, session.id_hash);
        return undefined;
      }
      // The provider is unreachable: keep the session while its access token is still valid.
      logger.warn({ err: error, subject: session.subject }, 'session refresh failed; retrying on a later request');
      return session.access_expires_at.getTime() > this.now().getTime() ? session : undefined;
    }
    const claims = tokens.claims;
    const updated = {
      access_token: tokens.accessToken,
      access_expires_at: tokens.accessExpiresAt,
      refresh_token: tokens.refreshToken,
      id_token: tokens.idToken,
      ...(claims
        ? { claimed_org_ids: this.claimedOrgIds(claims), name: typeof claims.name === 'string' ? claims.name : null }
        : {}),
    };
    await updateDashboardSessionTokens(db, session.id_hash, updated);
    return {
      ...session,
      ...Object.fromEntries(Object.entries(updated).filter(([, v]) => v !== undefined)),
    } as DashboardSession;
  }

  private claimedOrgIds(claims: Record<string, unknown>): string[] {
    const name = this.options.organizationsClaim;
    const value = name ? claims[name] : undefined;
    if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
    return typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : [];
  }
}
