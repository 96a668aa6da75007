// The video settings form's values and the PATCH body they make: only what changed, "" as null.
import type { UpdateVideoParams, VideoDetails } from '@kino/sdk';

export type SettingsForm = {
  name: string;
  description: string;
  public: boolean;
  externalId: string;
  creatorId: string;
  passthrough: string;
};

export function formOf(video: VideoDetails): SettingsForm {
  return {
    name: video.name,
    description: video.description ?? '',
    public: video.allowPublicAccess,
    externalId: video.metadata?.externalId ?? '',
    creatorId: video.metadata?.creatorId ?? '',
    passthrough: video.metadata?.passthrough ?? '',
  };
}

/** The fields of `next` that differ from `before`, as PATCH takes them ("" → null). */
export function changesOf(before: SettingsForm, next: SettingsForm): UpdateVideoParams {
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
  const metadata: NonNullable<UpdateVideoParams['metadata']> = {};
  for (const field of ['externalId', 'creatorId', 'passthrough'] as const) {
    if (next[field] !== before[field]) metadata[field] = orNull(next[field]);
  }
  return {
    ...(next.name.trim() !== before.name ? { videoName: next.name.trim() } : {}),
    ...(next.description !== before.description ? { description: orNull(next.description) } : {}),
    ...(next.public !== before.public ? { allowPublicAccess: next.public } : {}),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}
