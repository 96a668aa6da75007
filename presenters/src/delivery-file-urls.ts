// Where the files of a video are on the delivery host (`storyboard.vtt`, `audio.m4a`, a caption
// track's WebVTT): the contract's rule (`videoDeliveryUrls`), with the public path for a public
// video and the private one with a playback token for a private video (delivery puts that token on
// every URI inside the file it serves).
import { PLAYBACK_EXPIRATIONS, videoDeliveryUrls } from '@kino/proto/contract';
import type { Video } from '@kino/database';
import { mintPlaybackToken, type PlaybackKeyring } from '@kino/database/playback-keys';

/** Long enough for a page showing the player to stay open all day; details are read afresh. */
export const FILE_TOKEN_SECONDS = PLAYBACK_EXPIRATIONS['24h'];

/** Makes the URLs of files at the base of the video's path family; a private video's share one 24 h token, minted once. */
export async function deliveryFileUrls(
  keyring: Pick<PlaybackKeyring, 'activeKey'>,
  deliveryUrl: string,
  video: Pick<Video, 'id' | 'org_id' | 'env_id' | 'allow_public_access'>,
): Promise<(name: string) => string> {
  const token = video.allow_public_access
    ? null
    : await mintPlaybackToken(await keyring.activeKey(), { videoId: video.id, expiresInSeconds: FILE_TOKEN_SECONDS });
  return videoDeliveryUrls(deliveryUrl, { videoId: video.id, orgId: video.org_id, envId: video.env_id, token }).file;
}
