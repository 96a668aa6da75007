// The dev stack's OpenID provider (oidc-provider), run in the launcher's own process: what the
// dashboard signs in against on one machine. Known users with passwords, one confidential client
// (the dashboard), authorization code with PKCE, refresh tokens, RP-initiated sign-out. The login
// page is this file's (oidc-provider's development pages accept any name and password); consent is
// given at once, the dashboard being Kino's own. State is in memory: a restart signs everyone out.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Configuration } from 'oidc-provider';

export interface DevIdentityUser {
  email: string;
  password: string;
  name: string;
}

export interface DevIdentityClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
}

export interface DevIdentityProviderOptions {
  host: string;
  port: number;
  users: DevIdentityUser[];
  client: DevIdentityClient;
  /** Access token lifetime (default 10 minutes). */
  accessTokenTtlSeconds?: number;
  /**
   * Serve HTTPS with this certificate, under the issuer `https://<issuerHost>:<port>` (a name the
   * certificate covers; the production-path test's provider). Unset: plain http on `host`.
   */
  tls?: { key: string; cert: string; issuerHost: string };
  /** Where oidc-provider's own notices go (the dev stack: logs/identity.log) instead of the console. */
  log?: (line: string) => void;
}

export interface DevIdentityProvider {
  issuer: string;
  /** Revokes every grant of a user: their next refresh is refused (as when an administrator disables them). */
  revokeUser(email: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startDevIdentityProvider(options: DevIdentityProviderOptions): Promise<DevIdentityProvider> {
  const issuer = options.tls
    ? `https://${options.tls.issuerHost}:${options.port}`
    : `http://${options.host}:${options.port}`;
  const users = new Map(options.users.map((user) => [user.email.toLowerCase(), user]));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const grantsByAccount = new Map<string, Set<string>>();

  const configuration: Configuration = {
    clients: [
      {
        client_id: options.client.clientId,
        client_secret: options.client.clientSecret,
        redirect_uris: options.client.redirectUris,
        post_logout_redirect_uris: options.client.postLogoutRedirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'dev', use: 'sig', alg: 'RS256' }] as never },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The dashboard reads the address from the ID token, not from userinfo.
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      // The dashboard's "Sign out" already asked: the provider's confirmation page submits itself.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.type = 'html';
          ctx.body = providerPage(
            'Signing out',
            `<p>Signing you out…</p>${form}
<noscript><button form="op.logoutForm" name="logout" value="yes">Sign out</button></noscript>
<script>const f = document.getElementById('op.logoutForm'); const i = document.createElement('input');
i.type = 'hidden'; i.name = 'logout'; i.value = 'yes'; f.appendChild(i); f.submit();</script>`,
          );
        },
        // Shown only when a sign-out names no page to return to (the dashboard always names one).
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'html';
          ctx.body = providerPage('Signed out', '<p>You are signed out of the Kino dev identity provider.</p>');
        },
      },
      revocation: { enabled: true },
    },
    ttl: {
      AccessToken: options.accessTokenTtlSeconds ?? 600,
      IdToken: 3600,
      RefreshToken: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
      Grant: 14 * 24 * 3600,
      Interaction: 3600,
      AuthorizationCode: 60,
    },
    issueRefreshToken: async (_ctx, client, code) =>
      client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    async findAccount(_ctx, id) {
      const user = users.get(id);
      if (!user) return undefined;
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: user.email, email_verified: true, name: user.name }),
      };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  };
  // oidc-provider announces, on the console, that its state and signing keys are development-only
  // (and, on a Node older than 22, that it wants a newer one): known and intended here, so they go
  // to the log with the rest.
  const provider = await withNoticesTo(options.log, async () => {
    const { default: Provider } = await import('oidc-provider');
    return new Provider(issuer, configuration);
  });
  const handleProvider = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'consent') {
      // Kino's own dashboard: consent is implied.
      const accountId = details.session!.accountId;
      const grant = details.grantId
        ? (await provider.Grant.find(details.grantId))!
        : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      grantsByAccount.set(accountId, (grantsByAccount.get(accountId) ?? new Set()).add(grantId));
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }
    if (req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const email = (form.get('email') ?? '').trim().toLowerCase();
      const user = users.get(email);
      if (user && user.password === form.get('password')) {
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: email } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      sendLoginPage(res, details.uid, 'Unknown e-mail address or wrong password.');
      return;
    }
    sendLoginPage(res, details.uid);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interaction(req, res).catch((error: unknown) => {
        res.statusCode = 400;
        res.end(`sign-in failed: ${(error as Error).message}`);
      });
      return;
    }
    void handleProvider(req, res);
  };
  const server: Server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler)
    : createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });

  return {
    issuer,
    async revokeUser(email) {
      const accountId = email.toLowerCase();
      for (const grantId of grantsByAccount.get(accountId) ?? []) {
        await (await provider.Grant.find(grantId))?.destroy();
        // Refresh tokens of the grant go with it: the next refresh is invalid_grant.
        await provider.RefreshToken.revokeByGrantId(grantId);
      }
      grantsByAccount.delete(accountId);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function withNoticesTo<T>(log: ((line: string) => void) | undefined, run: () => Promise<T>): Promise<T> {
  const { warn, info } = console;
  const route =
    (original: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider ')) log?.(args.map(String).join(' '));
      else original(...args);
    };
  console.warn = route(warn);
  console.info = route(info);
  try {
    return await run();
  } finally {
    console.warn = warn;
    console.info = info;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendLoginPage(res: ServerResponse, uid: string, problem?: string): void {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res.statusCode = problem ? 401 : 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(
    providerPage(
      'Sign in',
      `${problem ? `<p role="alert">${escape(problem)}</p>` : ''}
<form method="post" action="/interaction/${escape(uid)}">
<label>E-mail <input name="email" type="email" autocomplete="username" required autofocus></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`,
    ),
  );
}

/**
 * A page of the provider: laid out for a phone's width, in Kino's look (a provider of its own
 * origin, so its style and icon travel inside the page rather than from the dashboard's files).
 */
function providerPage(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Kino dev identity provider</title>
<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(favicon)}">
<style>${providerStyle}</style></head>
<body><main><p class="brand">Kino dev identity provider</p><h1>${title}</h1>${body}</main></body></html>`;
}

const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3b5bdb"/><path d="M12 9.5v13l10.5-6.5z" fill="#fff"/></svg>`;

const providerStyle = `
body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 16px; box-sizing: border-box;
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #1d2330; background: #f6f7f9; }
main { width: 100%; max-width: 380px; box-sizing: border-box; background: #fff; border: 1px solid #d9dde3;
  border-radius: 8px; padding: 24px; }
.brand { margin: 0 0 4px; color: #5c6470; font-size: 0.85rem; }
h1 { margin: 0 0 16px; font-size: 1.25rem; }
form { display: grid; gap: 12px; }
label { display: grid; gap: 4px; font-size: 0.9rem; }
input { font: inherit; padding: 8px 10px; border: 1px solid #d9dde3; border-radius: 6px; width: 100%; box-sizing: border-box; }
button { font: inherit; padding: 9px 12px; border: 0; border-radius: 6px; background: #3b5bdb; color: #fff; cursor: pointer; }
[role=alert] { color: #c92a2a; margin: 0 0 12px; }
`;
