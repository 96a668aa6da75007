// What `kino dev` prints once everything is up: where each part listens, the dev credentials and a
// curl line to paste.
import { relative } from 'node:path';
import type { DevStackStatus } from './launcher.ts';

export function formatSummary(status: DevStackStatus): string {
  const { layout, devJson, env } = status;
  const { host, ports } = layout;
  const shown = (path: string) =>
    relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path) || '.';
  const lines = [
    '',
    `Kino dev stack ${status.problems.length || status.missing.length ? 'running (see below)' : 'ready'} in ${(status.startedInMs / 1000).toFixed(1)} s`,
    '',
    `  API         ${devJson.apiUrl}   (OpenAPI: ${devJson.apiUrl}/openapi.json)`,
    `  Delivery    ${devJson.deliveryUrl}`,
    ...(env.LIVE_RTMP_URL
      ? [`  Ingest      ${env.LIVE_RTMP_URL}/<stream key>   (RTMP; kino live create prints a key)`]
      : []),
    ...(env.LIVE_SRT_URL ? [`              ${env.LIVE_SRT_URL}?streamid=<stream key>   (SRT)`] : []),
    `  Registry    ${host}:${ports.registry}   (${ports.nodeMetrics.length} encode nodes connected, relay ${host}:${ports.relay}, ${layout.nodeSlots} slot${layout.nodeSlots > 1 ? 's' : ''} each)`,
    `  Temporal    ${env.TEMPORAL_ADDRESS}`,
    `  S3          ${env.S3_ENDPOINT}   (bucket ${env.S3_BUCKET})`,
    `  PostgreSQL  ${devJson.databaseUrl}`,
  ];
  if (env.CLICKHOUSE_URL) lines.push(`  Analytics   ${env.CLICKHOUSE_URL}`);
  // The orchestrator and the nodes speak gRPC: their metrics have ports of their own (also in dev.json).
  const metrics = Object.entries(devJson.metricsUrls);
  if (metrics.length > 0) lines.push(`  Metrics     ${metrics.map(([part, url]) => `${part} ${url}`).join(', ')}`);
  if (devJson.dashboardUrl)
    lines.push(
      `  Dashboard   ${devJson.dashboardUrl}   (sign in as ${devJson.dashboardUser.email}, password ${devJson.dashboardUser.password}; identity provider ${devJson.oidcIssuer})`,
    );
  if (devJson.orgId) {
    lines.push(
      '',
      `  orgId       ${devJson.orgId}`,
      `  envId       ${devJson.envId}`,
      `  apiKey      ${devJson.apiKey}`,
      '',
      '  Try:',
      `  curl -H 'X-Api-Key: ${devJson.apiKey}' ${devJson.apiUrl}/${devJson.orgId}/environments`,
    );
  }
  lines.push('', `  State in ${shown(layout.dir)}/ (dev.json, dev.env), logs in ${shown(layout.logsDir)}/<part>.log`);
  if (status.missing.length) lines.push('', '  Not started:', ...status.missing.map((m) => `    - ${m}`));
  if (status.problems.length) lines.push('', '  Problems:', ...status.problems.map((p) => `    - ${p}`));
  lines.push('', 'Press Ctrl-C to stop.', '');
  return lines.join('\n');
}
