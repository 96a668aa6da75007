import { readFileSync } from 'node:fs';

/** The control plane's package version, reported by /health and the OpenAPI document. */
export const apiVersion: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
