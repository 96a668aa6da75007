import { test } from 'vitest';
import assert from 'node:assert/strict';
import { signWebhook } from './signature.ts';

test('signature matches the Standard Webhooks reference example', () => {
  // The example of the Standard Webhooks specification's reference libraries.
  const headers = signWebhook(
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'msg_p5jXN8AQM9LWM0D4loKWxJek',
    1614265330,
    '{"test": 2432232314}',
  );
  assert.equal(headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  assert.equal(headers['webhook-id'], 'msg_p5jXN8AQM9LWM0D4loKWxJek');
  assert.equal(headers['webhook-timestamp'], '1614265330');
});

test('a secret without the whsec_ prefix signs the same', () => {
  const a = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'm', 1, '{}');
  const b = signWebhook('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'm', 1, '{}');
  assert.equal(a['webhook-signature'], b['webhook-signature']);
});
