// Where a file of a video is on the delivery host (`storyboardUrl`, `audioUrl`, a caption track's `url`): the
// public path for a public video, the private one with a playback token for a private video
// (delivery puts that token on every URI inside the file it serves). The storyboard's is undefined
// while the video has none, so a client is never handed a URL that answers 404.
import { audioDownloadName, deliveryPaths, storyboardVttName } from '@kino/proto/contract';
import type { Video } from '@kino/database';
import { PLAYBACK_EXPIRATIONS } from '@kino/proto/contract';
import { mintPlaybackToken, type PlaybackKeyring } from '@kino/database/playback-keys';

/** Long enough for a page showing the player to stay open all day; details are read afresh. */
export const STORYBOARD_TOKEN_SECONDS = PLAYBACK_EXPIRATIONS['24h'];

export async function storyboardUrlOf(
  keyring: Pick<PlaybackKeyring, 'activeKey'>,
  deliveryUrl: string,
  video: Pick<Video, 'id' | 'org_id' | 'env_id' | 'status' | 'allow_public_access' | 'storyboard_key'>,
): Promise<string | undefined> {
  if (video.status !== 'ready' || !video.storyboard_key) return undefined;
  return (await deliveryFileUrls(keyring, deliveryUrl, video))(storyboardVttName);
}

/**
 * `audioUrl`: the `audio.m4a` download of a ready video with sound, with a 24 h token for a private
 * video as the storyboard's; undefined while the video has none (silent, or made before audio
 * downloads), so a client is never handed a URL that answers 404.
 */
export async function audioUrlOf(
  keyring: Pick<PlaybackKeyring, 'activeKey'>,
  deliveryUrl: string,
  video: Pick<Video, 'id' | 'org_id' | 'env_id' | 'status' | 'allow_public_access' | 'audio_key'>,
): Promise<string | undefined> {
  if (video.status !== 'ready' || !video.audio_key) return undefined;
  return (await deliveryFileUrls(keyring, deliveryUrl, video))(audioDownloadName);
}

/**
 * Makes the URLs of files at the base of the video's path family (`storyboard.vtt`,
 * `subtitles-en.vtt`); a private video's share one 24 h token, minted once.
 */
export async function deliveryFileUrls(
  keyring: Pick<PlaybackKeyring, 'activeKey'>,
  deliveryUrl: string,
  video: Pick<Video, 'id' | 'org_id' | 'env_id' | 'allow_public_access'>,
): Promise<(name: string) => string> {
  const base = deliveryUrl.replace(/\/+$/, '');
  if (video.allow_public_access) return (name) => `${base}${deliveryPaths.publicFile(video.org_id, video.env_id, video.id, name)}`;
  const token = await mintPlaybackToken(await keyring.activeKey(), { videoId: video.id, expiresInSeconds: STORYBOARD_TOKEN_SECONDS });
  return (name) => `${base}${deliveryPaths.privateFile(video.id, name)}?token=${token}`;
}
