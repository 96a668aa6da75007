// Following videos until they are processed, for `videos wait`, `videos retry --wait` and
// `videos upload --wait`: a spinner line per video on a terminal, then exit 3 if any failed.
import type { Kino, VideoDetails } from '@kino/sdk';
import { VideoFailedError } from './api-command.ts';
import { showsProgress } from './output.ts';
import { videoState } from './video-state.ts';

/**
 * Waits for every video; throws VideoFailedError (exit 3) naming the failed ones, after all have
 * ended. `labels` name the videos on stderr (the upload's file names, so its output shows each id
 * once); the ids by default.
 */
export async function waitForVideos(
  kino: Kino,
  orgId: string,
  videoIds: string[],
  timeoutSeconds: number,
  labels: string[] = videoIds,
): Promise<VideoDetails[]> {
  const { VideoProcessingFailedError } = await import('@kino/sdk');
  const progress = showsProgress();
  const started = Date.now();
  const states = new Map<string, string>(videoIds.map((id) => [id, 'transcoding']));
  const labelOf = new Map(videoIds.map((id, index) => [id, labels[index] ?? id]));
  const draw = () => {
    if (!progress) return;
    const seconds = Math.round((Date.now() - started) / 1000);
    const line = [...states].map(([id, state]) => `${labelOf.get(id)} ${state}`).join(', ');
    process.stderr.write(`\r\x1b[2K${line} (${seconds} s)`);
  };
  const timer = progress ? setInterval(draw, 500) : undefined;
  try {
    const outcomes = await Promise.all(
      videoIds.map(async (id) => {
        try {
          const video = await kino.videos.waitUntilReady(orgId, id, {
            timeoutMs: timeoutSeconds * 1000,
            intervalMs: 1000,
            onPoll: (polled) => states.set(id, videoState(polled)),
          });
          states.set(id, 'ready');
          return video;
        } catch (error) {
          if (error instanceof VideoProcessingFailedError) {
            states.set(id, 'failed');
            return error.video;
          }
          throw error;
        }
      }),
    );
    draw();
    if (progress) process.stderr.write('\n');
    const failed = outcomes.filter((video) => video.status.failed);
    for (const video of outcomes) {
      const reason = video.status.failed && video.failureReason ? ` (${video.failureReason})` : '';
      process.stderr.write(`${labelOf.get(video.id)}: ${videoState(video)}${reason}\n`);
    }
    if (failed.length > 0) {
      // --json still shows what the videos are: the error carries them.
      throw new VideoFailedError(`failed to process: ${failed.map((video) => video.id).join(', ')}`, outcomes);
    }
    return outcomes;
  } finally {
    clearInterval(timer);
  }
}
