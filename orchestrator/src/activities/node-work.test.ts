// The node activities' own questions about the farm, with a fake farm: how encodes are grouped.
// Each job kind's tests are beside its file in ../jobs/.
import { test } from 'vitest';
import assert from 'node:assert/strict';
import { createNodeActivities } from './node-work.ts';
import { harness, logger } from '../testing/fake-node.ts';

test('ENCODE_GROUPING auto: one decode for the ladder on a one-node farm, fan-out per rendition across several', async () => {
  const groupingWith = (liveNodes: number, encodeGrouping?: 'auto' | 'ladder' | 'rendition') =>
    createNodeActivities({ ...harness({ liveNodes }), logger, encodeGrouping }).encodeGrouping();
  assert.equal(await groupingWith(1), 'ladder');
  assert.equal(await groupingWith(0), 'ladder');
  assert.equal(await groupingWith(2), 'rendition');
  assert.equal(await groupingWith(3, 'ladder'), 'ladder');
  assert.equal(await groupingWith(1, 'rendition'), 'rendition');
});
