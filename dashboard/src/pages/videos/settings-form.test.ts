import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import type { VideoDetails } from '@kino/sdk';
import { changesOf, formOf } from './settings-form.ts';

const video = {
  name: 'Keynote',
  description: 'Opening',
  allowPublicAccess: true,
  metadata: { externalId: 'post-42' },
} as VideoDetails;

describe('the video settings form', () => {
  it('sends nothing when nothing changed', () => {
    assert.deepEqual(changesOf(formOf(video), formOf(video)), {});
  });

  it('sends only the changed fields, trimmed, and an emptied one as null', () => {
    const before = formOf(video);
    const next = {
      ...before,
      name: ' Keynote 2026 ',
      public: false,
      description: '',
      externalId: '',
      creatorId: 'user-7',
    };
    assert.deepEqual(changesOf(before, next), {
      videoName: 'Keynote 2026',
      description: null,
      allowPublicAccess: false,
      metadata: { externalId: null, creatorId: 'user-7' },
    });
  });
});
