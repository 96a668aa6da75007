import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { StorageUnavailableError } from '@kino/infra';
import errorHandlerPlugin from './error-handler.ts';
import { ConflictError } from '../http/errors.ts';
import { DatabaseUnavailableError } from '@kino/database';

async function appWith(handler: () => Promise<unknown>) {
  const app = Fastify({ logger: false });
  await app.register(errorHandlerPlugin);
  app.get('/boom', handler);
  return app;
}

describe('error handler', () => {
  it('turns an ApiError into the envelope with its code', async () => {
    const app = await appWith(async () => {
      throw new ConflictError('processing_in_progress', 'already processing');
    });
    const response = await app.inject({ url: '/boom' });
    assert.equal(response.statusCode, 409);
    assert.deepEqual(response.json(), {
      title: 'Conflict',
      status: 409,
      detail: 'already processing',
      code: 'processing_in_progress',
    });
  });

  it('hides what an unexpected error says: 500 internal_error with the request id only', async () => {
    const app = await appWith(async () => {
      throw new Error('password=hunter2 at db.internal:5432');
    });
    const response = await app.inject({ url: '/boom' });
    assert.equal(response.statusCode, 500);
    const body = response.json<{ code: string; detail: string; title: string }>();
    assert.equal(body.code, 'internal_error');
    assert.equal(body.title, 'Internal Server Error');
    assert.ok(!response.body.includes('hunter2'));
    assert.ok(!response.body.includes('    at '));
    assert.match(body.detail, /^An internal error occurred \(request [^)]+\)\.?$/);
    assert.ok(
      body.detail.includes(response.headers['x-request-id'] as string),
      'the detail names the id the response carries',
    );
  });

  const outages = [
    ['a database', () => new DatabaseUnavailableError(new Error('connect ECONNREFUSED 10.0.0.5:5432'))],
    ['storage', () => new StorageUnavailableError(new Error('connect ECONNREFUSED 10.0.0.5:8333'))],
  ] as const;
  for (const [dependency, outage] of outages) {
    it(`answers ${dependency} that is down or restarting with 503 service_unavailable, saying nothing of the connection`, async () => {
      const app = await appWith(async () => {
        throw outage();
      });
      const response = await app.inject({ url: '/boom' });
      assert.equal(response.statusCode, 503);
      const body = response.json<{ code: string; title: string; status: number }>();
      assert.equal(body.code, 'service_unavailable');
      assert.equal(body.title, 'Service Unavailable');
      assert.ok(!response.body.includes('10.0.0.5'));
      assert.ok(
        response.json<{ detail: string }>().detail.endsWith(`(request ${response.headers['x-request-id']}).`),
        'a 5xx names the request id',
      );
    });
  }

  it('answers unknown routes with a 404 envelope', async () => {
    const app = await appWith(async () => ({}));
    const response = await app.inject({ url: '/nowhere?x=1' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json<{ code: string }>().code, 'not_found');
    assert.match(response.json<{ detail: string }>().detail, /GET \/nowhere\b/);
  });
});
