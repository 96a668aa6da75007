import { test } from 'vitest';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { clientAddressReader } from './client-address.ts';

const request = (socket: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: socket },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

test('without trusted proxies the socket is the client, whatever X-Forwarded-For says', () => {
  const read = clientAddressReader([]);
  assert.equal(read(request('203.0.113.9', '198.51.100.1')), '203.0.113.9');
  assert.equal(read(request('::ffff:203.0.113.9')), '203.0.113.9');
});

test('from a trusted proxy the client is the forwarded address nearest it that is not a trusted proxy', () => {
  const read = clientAddressReader(['10.0.0.0/8', '192.0.2.7', 'loopback']);
  // The load balancer (10.1.2.3) forwards for a viewer behind a trusted CDN edge (192.0.2.7).
  assert.equal(read(request('::ffff:10.1.2.3', '198.51.100.1, 192.0.2.7')), '198.51.100.1');
  // A viewer claiming an address of its own in front of that: the entry the proxies added wins.
  assert.equal(read(request('10.1.2.3', '6.6.6.6, 198.51.100.1')), '198.51.100.1');
  // A direct viewer (not a proxy) cannot pass for another with the header.
  assert.equal(read(request('198.51.100.2', '6.6.6.6')), '198.51.100.2');
  // Every hop trusted: the leftmost one is the client.
  assert.equal(read(request('127.0.0.1', '10.9.9.9')), '10.9.9.9');
  assert.equal(read(request('::1', '2001:db8::5')), '2001:db8::5');
});
