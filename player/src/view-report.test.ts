import { expect, test } from 'vitest';
import { beaconTargetOf } from './view-report.ts';

test('a master URL names the video a view is reported for, in every path family', () => {
  const at = (path: string) => beaconTargetOf(new URL(path, 'https://d.example'));
  expect(at('/v1/private/vid_a/master.m3u8?token=t')).toEqual({ videoId: 'vid_a' });
  expect(at('/v1/public/org_1/env_2/vid_a/master.m3u8')).toEqual({ videoId: 'vid_a', orgId: 'org_1', envId: 'env_2' });
  expect(at('/vid_a/master.m3u8')).toEqual({ videoId: 'vid_a' });
  // A share link's viewer knows only the link: delivery takes it in the video's place.
  expect(at('/v1/share/shr_abc/master.m3u8')).toEqual({ videoId: 'shr_abc' });
  expect(at('/v1/somewhere/master.m3u8')).toBeNull();
});
