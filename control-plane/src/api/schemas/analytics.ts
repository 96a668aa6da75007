// The analytics records of the interface, field for field. Counts are int64 written as JSON
// numbers; timestamps are `YYYY-MM-DDThh:mm:ssZ`, and `""` when their `...Valid` companion is false.
import { Type } from '@sinclair/typebox';

const Int64 = (description?: string) => Type.Integer(description ? { description } : {});
const Timestamp = (description: string) => Type.String({ description: `${description} (UTC, YYYY-MM-DDThh:mm:ssZ; "" when not valid).` });

export const UsageRecordSchema = Type.Object(
  {
    authOrgId: Type.String({ description: 'The organization id (the identity provider’s id once the dashboard maps one).' }),
    envId: Type.String(),
    totalVideos: Int64('Videos that exist now (deleted ones excluded).'),
    totalVideoDurationSeconds: Type.Number(),
    totalSegmentsServed: Int64('All time.'),
    videosUploadedInPeriod: Int64('Videos created in the period, deleted since or not.'),
    segmentsServedInPeriod: Int64(),
    firstVideoUploaded: Timestamp('When the first video of the environment was created'),
    firstVideoUploadedValid: Type.Boolean(),
    lastSegmentServed: Timestamp('When the last segment was served'),
    lastSegmentServedValid: Type.Boolean(),
  },
  { title: 'UsageRecord' },
);

export const DailyRecordSchema = Type.Object(
  {
    deliveryDate: Type.String({ description: 'The UTC day, as its midnight: YYYY-MM-DDT00:00:00Z.' }),
    segmentsServed: Int64(),
    uniqueVideosServed: Int64(),
    hdSegments: Int64('1080p and above.'),
    sdSegments: Int64('720p (and heights between 480p and 1080p).'),
    ldSegments: Int64('480p and below.'),
  },
  { title: 'DailyRecord' },
);

export const StorageRecordSchema = Type.Object(
  {
    totalVideos: Int64('Videos that exist now (deleted ones excluded).'),
    totalDurationSeconds: Type.Number(),
    avgVideoDuration: Type.Number({ description: 'Seconds; 0 without videos.' }),
    ultraQualityDuration: Type.Number({ description: 'Seconds of videos processed with the ultra preset.' }),
    highQualityDuration: Type.Number(),
    standardQualityDuration: Type.Number(),
  },
  { title: 'StorageRecord' },
);

const VideoNaming = {
  vidId: Type.String(),
  vidPublicId: Type.String(),
  vidName: Type.String(),
  vidNameValid: Type.Boolean(),
};

const ServedSpan = {
  firstServed: Timestamp('First segment served'),
  firstServedValid: Type.Boolean(),
  lastServed: Timestamp('Last segment served'),
  lastServedValid: Type.Boolean(),
};

export const ResolutionSummarySchema = Type.Object(
  {
    ...VideoNaming,
    vidLengthSeconds: Type.Number(),
    availableResolutions: Type.Integer({ description: 'Count of rendition variants.' }),
    totalSegmentsServed: Int64(),
    totalDaysServed: Int64(),
    ...ServedSpan,
    mostPopularResolution: Type.Integer({ description: 'The height served most (0 when not valid).' }),
    mostPopularResolutionValid: Type.Boolean(),
  },
  { title: 'ResolutionSummary' },
);

export const ResolutionEntrySchema = Type.Object(
  {
    ...VideoNaming,
    resolutionHeight: Type.Integer(),
    timesServed: Int64('Segments served at this height.'),
    ...ServedSpan,
    daysServed: Int64(),
  },
  { title: 'ResolutionEntry' },
);

export const DistributionEntrySchema = Type.Object(
  {
    resolutionHeight: Type.Integer(),
    segmentsServed: Int64(),
    uniqueVideos: Int64(),
    daysActive: Int64(),
    ...ServedSpan,
  },
  { title: 'DistributionEntry' },
);
