// GET /health, without a key: is every dependency reachable? 200 `ok` when all are; 503 `degraded`
// naming the failing checks otherwise. The 503 is the error envelope with the same health `body`,
// so clients that only know the envelope and monitors that read the checks both understand it.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pingDatabase } from '@kino/database';
import type { ApiDeps, RouteOptions } from '../deps.ts';
import { errorEnvelope } from '@kino/proto/contract';
import { Envelope, StringEnum } from '../schemas/common.ts';
import { apiVersion } from '../http/version.ts';

const CHECK_TIMEOUT_MS = 3000;

const CheckSchema = Type.Object({
  status: StringEnum(['ok', 'error', 'skipped']),
  latencyMs: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
});
type Check = { status: 'ok' | 'error' | 'skipped'; latencyMs?: number; error?: string };

const HealthSchema = Type.Object({
  status: StringEnum(['ok', 'degraded']),
  version: Type.String(),
  checks: Type.Object({ database: CheckSchema, temporal: CheckSchema, storage: CheckSchema, analytics: CheckSchema }),
});

const UnavailableSchema = Type.Object({
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String(),
  body: HealthSchema,
});

async function runCheck(name: string, deps: ApiDeps, probe: (() => Promise<unknown>) | undefined): Promise<Check> {
  if (!probe) return { status: 'skipped' };
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        // A little later than the probes' own deadlines, so a probe normally ends (and cleans up) first.
        timer = setTimeout(() => reject(new Error(`timed out after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS + 500);
      }),
    ]);
    return { status: 'ok', latencyMs: Date.now() - started };
  } catch (error) {
    // The reason goes to the log; the unauthenticated response does not describe the network.
    deps.logger.warn({ err: error, check: name }, 'health check failed');
    const timedOut = error instanceof Error && error.message.startsWith('timed out');
    return { status: 'error', latencyMs: Date.now() - started, error: timedOut ? 'timed out' : 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

export const healthRoutes: FastifyPluginAsyncTypebox<RouteOptions> = async (app, { deps }) => {
  app.get(
    '/health',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['health'],
        summary: 'Service status',
        operationId: 'getHealth',
        description: 'Checks the database, Temporal, object storage and analytics. No API key needed.',
        security: [],
        response: {
          200: Envelope(HealthSchema, {
            status: 'ok',
            version: '0.1.0',
            checks: {
              database: { status: 'ok', latencyMs: 2 },
              temporal: { status: 'ok', latencyMs: 5 },
              storage: { status: 'ok', latencyMs: 4 },
              analytics: { status: 'ok', latencyMs: 3 },
            },
          }),
          503: UnavailableSchema,
        },
      },
    },
    async (request, reply) => {
      const { db, temporal, storage, clickhouse, analyticsSchemaMigrated } = deps;
      const [database, temporalCheck, storageCheck, analytics] = await Promise.all([
        runCheck('database', deps, () => pingDatabase(db)),
        runCheck('temporal', deps, () =>
          temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
            temporal.workflowService.getSystemInfo({}),
          ),
        ),
        runCheck('storage', deps, () => storage.ping()),
        // Reachable is not enough: delivery nodes ship rows only once the API created the schema.
        runCheck(
          'analytics',
          deps,
          clickhouse
            ? async () => {
                await clickhouse.ping();
                if (analyticsSchemaMigrated && !analyticsSchemaMigrated())
                  throw new Error('analytics schema not migrated yet');
              }
            : undefined,
        ),
      ]);
      const checks = { database, temporal: temporalCheck, storage: storageCheck, analytics };
      const failing = Object.entries(checks)
        .filter(([, check]) => check.status === 'error')
        .map(([name]) => name);
      const body = { status: failing.length ? ('degraded' as const) : ('ok' as const), version: apiVersion, checks };
      if (failing.length === 0) return { body };
      return reply.status(503).send({
        ...errorEnvelope(503, 'service_unavailable', `Unavailable: ${failing.join(', ')} (request ${request.id}).`),
        body,
      });
    },
  );
};
