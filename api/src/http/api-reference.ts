// The API's reference page (docs/decisions/api.md#the-reference-page): GET /v1/api/docs renders the
// API's own OpenAPI document with Scalar's API reference, a well-kept renderer. Its script is
// Scalar's standalone bundle (one file, styles included) served from node_modules by the API itself,
// and the page's Content-Security-Policy lets it load nothing from anywhere else: no CDN, no fonts
// service, no telemetry.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';

/** Where the reference lives, under the API's prefix; the document is `openapi.json` beside it. */
export const API_REFERENCE_PATH = '/docs';

// `@scalar/api-reference`'s entry is dist/index.js; its browser bundle sits beside it.
const bundlePath = join(
  dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')),
  'browser',
  'standalone.js',
);

/**
 * Everything from this origin. Styles: the bundle injects its stylesheet as <style> elements and
 * sets inline styles, which 'unsafe-inline' allows for styles only (never for scripts).
 */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function page(prefix: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Kino API reference</title>
    <!-- No favicon request: the API has none. -->
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="reference"></div>
    <script src="${prefix}${API_REFERENCE_PATH}/scalar-api-reference.js"></script>
    <script src="${prefix}${API_REFERENCE_PATH}/start.js"></script>
  </body>
</html>
`;
}

/** The renderer's configuration, as a script of its own: the policy allows no inline script. */
function startScript(prefix: string): string {
  const configuration = {
    url: `${prefix}/openapi.json`,
    // The defaults would fetch fonts from Scalar's servers and report usage to them.
    withDefaultFonts: false,
    telemetry: false,
    // No "Ask AI" and no "Generate MCP" (hosted services), no developer toolbar.
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
  };
  return `Scalar.createApiReference('#reference', ${JSON.stringify(configuration)});\n`;
}

/** Registers the page and its two scripts under `prefix` (the API's), without a key. */
export async function registerApiReference(api: FastifyInstance, prefix: string): Promise<void> {
  const html = page(prefix);
  const start = startScript(prefix);
  // Read once: 4 MB that never changes while the process runs.
  const bundle = await readFile(bundlePath);
  const route = { config: { auth: 'none' as const }, schema: { hide: true } };

  api.get(API_REFERENCE_PATH, route, async (_request, reply) => {
    reply
      .header('Content-Security-Policy', contentSecurityPolicy)
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8');
    return html;
  });
  api.get(`${API_REFERENCE_PATH}/start.js`, route, async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8');
    return start;
  });
  api.get(`${API_REFERENCE_PATH}/scalar-api-reference.js`, route, async (_request, reply) => {
    reply.header('Cache-Control', 'public, max-age=3600').type('text/javascript; charset=utf-8');
    return bundle;
  });
}
