// Every migration, listed explicitly and in order. Names are timestamps; add new ones at the end.
import type { Migration } from 'kysely';
import * as tenancyAndVideos from './20261121T0600_tenancy_and_videos.ts';
import * as signingKeys from './20261121T1500_signing_keys.ts';
import * as idempotencyKeys from './20261123T0100_idempotency_keys.ts';
import * as encodeQueue from './20261123T0200_encode_queue.ts';
import * as shareLinks from './20261123T0200_share_links.ts';
import * as storyboards from './20261123T0200_storyboards.ts';
import * as multipartUploads from './20261123T0300_multipart_uploads.ts';
import * as videoListScale from './20261123T0300_video_list_scale.ts';
import * as nodeDrain from './20261123T0330_node_drain.ts';
import * as encodeQueueOrder from './20261123T0400_encode_queue_order.ts';
import * as dashboardSessions from './20261123T0500_dashboard_sessions.ts';
import * as keySecurity from './20261123T0500_key_security.ts';
import * as nodeQuarantine from './20261123T0510_node_quarantine.ts';
import * as videoServedSegments from './20261123T0600_video_served_segments.ts';
import * as videoSearch from './20261124T0100_video_search.ts';
import * as uploadSettled from './20261125T0100_upload_settled.ts';
import * as operatorTokens from './20261125T0200_operator_tokens.ts';
import * as videoSourceUrl from './20261126T0100_video_source_url.ts';
import * as captionTracks from './20261126T0200_caption_tracks.ts';
import * as videoClips from './20261126T0300_video_clips.ts';
import * as videoAudioKey from './20261126T0400_video_audio_key.ts';
import * as videoMetadata from './20261126T0500_video_metadata.ts';
import * as webhookDeliveries from './20261127T0100_webhook_deliveries.ts';
import * as clipOwnSegments from './20261127T0200_clip_own_segments.ts';
import * as renditionCodecs from './20261128T0100_rendition_codecs.ts';
import * as justInTime from './20261129T0100_just_in_time.ts';
import * as nodeCapabilities from './20261202T0100_node_capabilities.ts';
import * as environmentEncodeSettings from './20261202T0200_environment_encode_settings.ts';
import * as leaseSegments from './20261130T0100_lease_segments.ts';
import * as videoSourceDynamicRange from './20261201T0100_video_source_dynamic_range.ts';
import * as audioTracks from './20261202T0300_audio_tracks.ts';
import * as videoMasterKey from './20261203T0100_video_master_key.ts';
import * as farmCredentials from './20261203T0300_farm_credentials.ts';
import * as images from './20261203T0500_images.ts';
import * as liveStreams from './20261203T0600_live_streams.ts';
import * as videoLiveStream from './20261203T0700_video_live_stream.ts';
import * as transcribeLanguages from './20261203T0800_transcribe_languages.ts';
import * as nodeEnrollmentTokens from './20261203T0900_node_enrollment_tokens.ts';
import * as registryCa from './20261204T0100_registry_ca.ts';
import * as liveStreamLease from './20261204T0300_live_stream_lease.ts';

export { buildConcurrentIndexes, concurrentIndexes, CONCURRENT_INDEX_BUILD_LOCK } from './concurrent-indexes.ts';

export const migrations: Record<string, Migration> = {
  '20261121T0600_tenancy_and_videos': tenancyAndVideos,
  '20261121T1500_signing_keys': signingKeys,
  '20261123T0100_idempotency_keys': idempotencyKeys,
  '20261123T0200_encode_queue': encodeQueue,
  '20261123T0200_share_links': shareLinks,
  '20261123T0200_storyboards': storyboards,
  '20261123T0300_multipart_uploads': multipartUploads,
  '20261123T0300_video_list_scale': videoListScale,
  '20261123T0330_node_drain': nodeDrain,
  '20261123T0400_encode_queue_order': encodeQueueOrder,
  '20261123T0500_dashboard_sessions': dashboardSessions,
  '20261123T0500_key_security': keySecurity,
  '20261123T0510_node_quarantine': nodeQuarantine,
  '20261123T0600_video_served_segments': videoServedSegments,
  '20261124T0100_video_search': videoSearch,
  '20261125T0100_upload_settled': uploadSettled,
  '20261125T0200_operator_tokens': operatorTokens,
  '20261126T0100_video_source_url': videoSourceUrl,
  '20261126T0200_caption_tracks': captionTracks,
  '20261126T0300_video_clips': videoClips,
  '20261126T0400_video_audio_key': videoAudioKey,
  '20261126T0500_video_metadata': videoMetadata,
  '20261127T0100_webhook_deliveries': webhookDeliveries,
  '20261127T0200_clip_own_segments': clipOwnSegments,
  '20261128T0100_rendition_codecs': renditionCodecs,
  '20261129T0100_just_in_time': justInTime,
  '20261130T0100_lease_segments': leaseSegments,
  '20261201T0100_video_source_dynamic_range': videoSourceDynamicRange,
  '20261202T0100_node_capabilities': nodeCapabilities,
  '20261202T0200_environment_encode_settings': environmentEncodeSettings,
  '20261202T0300_audio_tracks': audioTracks,
  '20261203T0100_video_master_key': videoMasterKey,
  '20261203T0300_farm_credentials': farmCredentials,
  '20261203T0500_images': images,
  '20261203T0600_live_streams': liveStreams,
  '20261203T0700_video_live_stream': videoLiveStream,
  '20261203T0800_transcribe_languages': transcribeLanguages,
  '20261203T0900_node_enrollment_tokens': nodeEnrollmentTokens,
  '20261204T0100_registry_ca': registryCa,
  '20261204T0300_live_stream_lease': liveStreamLease,
};
