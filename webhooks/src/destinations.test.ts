import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import {
  isPublicAddress,
  resolveWebhookDestination,
  WebhookDestinationError,
  type HostResolver,
} from './destinations.ts';

const resolver: HostResolver = async (hostname) => {
  const table: Record<string, Array<{ address: string; family: number }>> = {
    'public.test': [
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
    ],
    'mixed.test': [
      { address: '93.184.215.14', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ],
    'metadata.test': [{ address: '169.254.169.254', family: 4 }],
    'ula.test': [{ address: 'fd00::1', family: 6 }],
  };
  const answer = table[hostname];
  if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answer;
};

async function reasonOf(url: string): Promise<string> {
  try {
    await resolveWebhookDestination(url, resolver);
  } catch (error) {
    assert.ok(error instanceof WebhookDestinationError, String(error));
    return error.reason;
  }
  return 'accepted';
}

describe('webhook destinations', () => {
  it('tells public unicast addresses from every other kind', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])
      assert.equal(isPublicAddress(address), true, address);
    const notPublic = [
      '127.0.0.1',
      '127.9.9.9',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '169.254.0.1',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '192.0.2.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      'fc00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      'ff02::1',
      'not-an-address',
    ];
    for (const address of notPublic) assert.equal(isPublicAddress(address), false, address);
    // Public IPv4 carried in an IPv4-mapped IPv6 address is public.
    assert.equal(isPublicAddress('::ffff:93.184.215.14'), true);
  });

  it('checks every address a name resolves to, and literal addresses without DNS', async () => {
    assert.equal(await reasonOf('https://public.test/hook'), 'accepted');
    assert.equal(await reasonOf('https://93.184.215.14/hook'), 'accepted');
    assert.equal(await reasonOf('https://mixed.test/hook'), 'not_public', 'one private answer is enough to refuse');
    assert.equal(await reasonOf('http://metadata.test/latest/meta-data/'), 'not_public');
    assert.equal(await reasonOf('http://ula.test/'), 'not_public');
    assert.equal(await reasonOf('http://[::1]:8080/'), 'not_public');
    assert.equal(await reasonOf('http://[fe80::1]/'), 'not_public');
    assert.equal(await reasonOf('http://169.254.169.254/'), 'not_public');
    assert.equal(await reasonOf('http://nowhere.test/'), 'unresolvable');
  });
});
