import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { fromTabSeparatedField } from './clickhouse.ts';
import { segmentDeliveryColumns, SegmentRowEncoder } from './segment-row.ts';

describe('SegmentRowEncoder', () => {
  it('writes one field per column of segment_deliveries, in their order, ids escaped', () => {
    const line = new SegmentRowEncoder('node\t1').line({
      orgId: 'org_1',
      envId: 'env\\1',
      videoId: 'vid_1',
      renditionHeight: 720,
      segmentIndex: 3,
      bytes: 1000,
      access: 'private',
    });
    assert.ok(line.endsWith('\n'));
    const fields = line.slice(0, -1).split('\t').map(fromTabSeparatedField);
    const row = Object.fromEntries(Object.keys(segmentDeliveryColumns).map((name, i) => [name, fields[i]]));
    assert.equal(fields.length, Object.keys(segmentDeliveryColumns).length);
    assert.match(row.served_at!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.deepEqual(
      { ...row, row_id: undefined, served_at: undefined },
      {
        row_id: undefined,
        served_at: undefined,
        org_id: 'org_1',
        env_id: 'env\\1',
        video_id: 'vid_1',
        rendition_height: '720',
        segment_index: '3',
        bytes: '1000',
        access: 'private',
        node_id: 'node\t1',
      },
    );
  });

  it('gives every row of a node its own id', () => {
    const encoder = new SegmentRowEncoder('n1');
    const delivery = {
      orgId: 'o',
      envId: 'e',
      videoId: 'v',
      renditionHeight: 360,
      segmentIndex: 0,
      bytes: 1,
      access: 'public' as const,
    };
    const ids = new Set([0, 1, 2].map(() => encoder.line(delivery).split('\t')[0]));
    assert.equal(ids.size, 3);
  });
});
