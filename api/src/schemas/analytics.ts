// The analytics records of the interface, field for field. Counts are int64 written as JSON
// numbers; timestamps are `YYYY-MM-DDThh:mm:ssZ`, and `""` when their `...Valid` companion is false.
import { Type, type Static } from '@sinclair/typebox';

const Int64 = (description?: string) => Type.Integer(description ? { description } : {});
const Timestamp = (description: string) =>
  Type.String({ description: `${description} (UTC, YYYY-MM-DDThh:mm:ssZ; "" when not valid).` });

export const UsageRecordSchema = Type.Object(
  {
    authOrgId: Type.String({
      description: 'The organization id (the identity provider’s id once the dashboard maps one).',
    }),
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

// The examples of the OpenAPI document (and its reference page): the environment and video of the
// video examples (schemas/videos.ts), watched mostly at 1080p.
const served = {
  firstServed: '2026-11-20T10:02:11Z',
  firstServedValid: true,
  lastServed: '2026-11-26T08:41:57Z',
  lastServedValid: true,
};
const naming = {
  vidId: 'vid_5Rt2LmQ9xZk3Wv7A',
  vidPublicId: 'vid_5Rt2LmQ9xZk3Wv7A',
  vidName: 'Product launch keynote',
  vidNameValid: true,
};

export const exampleUsageRecord: Static<typeof UsageRecordSchema> = {
  authOrgId: 'org_3fK9xQ2mLr7TzV1a',
  envId: 'env_8HcPq4Ws0dYbN6eJ',
  totalVideos: 12,
  totalVideoDurationSeconds: 5321.4,
  totalSegmentsServed: 48210,
  videosUploadedInPeriod: 3,
  segmentsServedInPeriod: 15230,
  firstVideoUploaded: '2026-09-02T14:20:05Z',
  firstVideoUploadedValid: true,
  lastSegmentServed: '2026-11-26T08:41:57Z',
  lastSegmentServedValid: true,
};

export const exampleDailyRecord: Static<typeof DailyRecordSchema> = {
  deliveryDate: '2026-11-25T00:00:00Z',
  segmentsServed: 1840,
  uniqueVideosServed: 7,
  hdSegments: 1210,
  sdSegments: 520,
  ldSegments: 110,
};

export const exampleStorageRecord: Static<typeof StorageRecordSchema> = {
  totalVideos: 12,
  totalDurationSeconds: 5321.4,
  avgVideoDuration: 443.45,
  ultraQualityDuration: 0,
  highQualityDuration: 4102.7,
  standardQualityDuration: 1218.7,
};

export const exampleDistributionEntry: Static<typeof DistributionEntrySchema> = {
  resolutionHeight: 1080,
  segmentsServed: 30120,
  uniqueVideos: 9,
  daysActive: 41,
  ...served,
};

export const exampleVideoResolutions: {
  summary: Static<typeof ResolutionSummarySchema>;
  resolutions: Static<typeof ResolutionEntrySchema>[];
} = {
  summary: {
    ...naming,
    vidLengthSeconds: 754.2,
    availableResolutions: 4,
    totalSegmentsServed: 2310,
    totalDaysServed: 6,
    ...served,
    mostPopularResolution: 1080,
    mostPopularResolutionValid: true,
  },
  resolutions: [{ ...naming, resolutionHeight: 1080, timesServed: 1650, ...served, daysServed: 6 }],
};

// Experience analytics (issue 58): what viewers lived through, from the players' reports, with Mux
// Data's definitions (docs/analytics.md, "Experience analytics").
export const ExperienceRecordSchema = Type.Object(
  {
    key: Type.String({
      description:
        'The group: the UTC day (YYYY-MM-DD), the video id, the browser, the operating system, or the rendition height played longest (`720`).',
    }),
    views: Int64('Views reported by players (a view reported again counts once).'),
    watchTimeSeconds: Type.Number({ description: 'Time spent playing, summed over the views.' }),
    startupMsP50: Type.Union([Type.Number(), Type.Null()], {
      description:
        'Video startup time (play request to first frame), median over views that started; null when none did.',
    }),
    startupMsP95: Type.Union([Type.Number(), Type.Null()], {
      description: 'Video startup time, 95th percentile over views that started; null when none did.',
    }),
    rebufferPercent: Type.Number({ description: 'Stall time ÷ watch time × 100 (0 without watch time).' }),
    rebuffersPerMinute: Type.Number({ description: 'Stalls per minute of watch time (0 without watch time).' }),
    failurePercent: Type.Number({ description: 'Views ended by a fatal error ÷ views × 100.' }),
    exitsBeforeStartPercent: Type.Number({
      description:
        'Views with a play request that neither started nor failed ÷ views with a play request × 100 (0 without play requests).',
    }),
  },
  { title: 'ExperienceRecord' },
);

export const exampleExperienceRecord: Static<typeof ExperienceRecordSchema> = {
  key: '2026-11-25',
  views: 412,
  watchTimeSeconds: 61_830.5,
  startupMsP50: 640,
  startupMsP95: 1_870,
  rebufferPercent: 0.42,
  rebuffersPerMinute: 0.031,
  failurePercent: 0.73,
  exitsBeforeStartPercent: 2.9,
};
