// The dashboard's OpenID Connect client (openid-client): authorization code with PKCE, refresh,
// sign-out at the provider. The provider's metadata is discovered on first use and kept, so the
// API starts (and answers keys) while the provider is down; a failed discovery is tried again.
import * as oidc from 'openid-client';
import { isLoopbackUrl } from '../config.ts';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  /** Where the provider sends the browser back: `${DASHBOARD_URL}/auth/callback`. */
  redirectUri: string;
  /** Where the provider sends the browser after its sign-out: the dashboard. */
  postLogoutRedirectUri: string;
}

/** What the callback needs to finish a sign-in: kept in a signed, short-lived cookie in between. */
export interface SignInTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The dashboard page to go back to (a path under /dashboard/). */
  returnTo: string;
}

export interface ProviderTokens {
  accessToken: string;
  refreshToken: string | undefined;
  idToken: string | undefined;
  accessExpiresAt: Date;
  /** The ID token's claims (on a refresh, present only when the provider sends a new ID token). */
  claims: Record<string, unknown> | undefined;
}

/** The provider refused a refresh (revoked, expired or rotated refresh token): the session ends. */
export class RefreshRefusedError extends Error {
  override name = 'RefreshRefusedError';
}

/** An access token with no `expires_in` is taken to live this long before a refresh is tried. */
const DEFAULT_ACCESS_TTL_S = 300;

export class OidcClient {
  private configuration: Promise<oidc.Configuration> | undefined;

  private readonly settings: OidcSettings;
  constructor(settings: OidcSettings) {
    this.settings = settings;
  }

  private config(): Promise<oidc.Configuration> {
    this.configuration ??= oidc
      .discovery(new URL(this.settings.issuer), this.settings.clientId, this.settings.clientSecret, undefined, {
        // Plain http only for a provider on loopback (the dev stack's); anything else must be https.
        execute: isLoopbackUrl(this.settings.issuer) ? [oidc.allowInsecureRequests] : [],
      })
      .catch((error: unknown) => {
        this.configuration = undefined;
        throw error;
      });
    return this.configuration;
  }

  async startSignIn(returnTo: string): Promise<{ url: URL; transaction: SignInTransaction }> {
    const config = await this.config();
    const transaction: SignInTransaction = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      returnTo,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(transaction.codeVerifier),
      code_challenge_method: 'S256',
      state: transaction.state,
      nonce: transaction.nonce,
      // offline_access needs consent at most providers; asking for it keeps the refresh token coming.
      ...(this.settings.scopes.split(' ').includes('offline_access') ? { prompt: 'consent' } : {}),
    });
    return { url, transaction };
  }

  /** Exchanges the callback's code (checking state, nonce and the PKCE verifier). */
  async finishSignIn(callbackUrl: URL, transaction: SignInTransaction): Promise<ProviderTokens> {
    const config = await this.config();
    const response = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: transaction.codeVerifier,
      expectedState: transaction.state,
      expectedNonce: transaction.nonce,
      idTokenExpected: true,
    });
    return tokensOf(response);
  }

  async refresh(refreshToken: string): Promise<ProviderTokens> {
    const config = await this.config();
    try {
      return tokensOf(await oidc.refreshTokenGrant(config, refreshToken));
    } catch (error) {
      // The provider's own answer (invalid_grant and the like) ends the session; a network failure does not.
      if (error instanceof oidc.ResponseBodyError)
        throw new RefreshRefusedError(`${error.error}: ${error.error_description ?? ''}`);
      throw error;
    }
  }

  /** The provider's sign-out page, when it has one; else the dashboard's own signed-out page. */
  async endSessionUrl(idToken: string | undefined): Promise<string> {
    const config = await this.config().catch(() => undefined);
    if (!config?.serverMetadata().end_session_endpoint) return this.settings.postLogoutRedirectUri;
    return oidc
      .buildEndSessionUrl(config, {
        post_logout_redirect_uri: this.settings.postLogoutRedirectUri,
        client_id: this.settings.clientId,
        ...(idToken ? { id_token_hint: idToken } : {}),
      })
      .toString();
  }
}

function tokensOf(response: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): ProviderTokens {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    idToken: response.id_token,
    accessExpiresAt: new Date(Date.now() + (response.expiresIn() ?? DEFAULT_ACCESS_TTL_S) * 1000),
    claims: response.claims() as Record<string, unknown> | undefined,
  };
}
