// The video page's Encoding tab: how the video was asked to be encoded, in words (setting-labels.ts),
// and the ladder it got: each rendition's codec, size, bitrate (measured, else the ladder's target,
// labelled as which) and VMAF.
import type { Encoding, VideoDetails } from '@kino/sdk';
import {
  audioCodecLabels,
  compressionLabels,
  encodingModeLabels,
  frameRateLabel,
  labelOf,
  maxEdgeLabel,
  pixelFormatLabels,
  rateControlLabels,
  videoCodecLabels,
  videoQualityLabels,
} from '../../setting-labels.ts';

export function EncodingTab({ video }: { video: VideoDetails }) {
  return (
    <div class="tab-columns">
      <section aria-labelledby="encoding-settings-title">
        <h2 id="encoding-settings-title">Settings asked for</h2>
        <dl class="facts" data-testid="encoding-facts">
          <dt>Quality</dt>
          <dd>{labelOf(videoQualityLabels, video.videoQuality)}</dd>
          <dt>Encoding</dt>
          <dd data-testid="fact-encoding">
            {encodingModeLabels[video.encodingMode]},{' '}
            {['h264' as const, ...video.additionalCodecs].map((codec) => videoCodecLabels[codec]).join(' + ')}
          </dd>
          <dt>Largest size</dt>
          <dd>{maxEdgeLabel(video.maxEdgeLength)}</dd>
          <dt>Frame rate</dt>
          <dd>{frameRateLabel(video.maxFrameRate)}</dd>
          <dt>Bitrate</dt>
          <dd data-testid="fact-rate-control">
            {labelOf(rateControlLabels, video.rateControlMode)}
            {video.twoPassVBREncoding ? ', two passes' : ''}
          </dd>
          <dt>Compression</dt>
          <dd data-testid="fact-compression">{labelOf(compressionLabels, video.compressionRatio)}</dd>
          <dt>Colour</dt>
          <dd>{labelOf(pixelFormatLabels, video.pixelFormat)}</dd>
          <dt>Audio</dt>
          <dd>{labelOf(audioCodecLabels, video.audioCodec)}</dd>
        </dl>
      </section>
      <section aria-labelledby="encoding-ladder-title" class="wide-column">
        <h2 id="encoding-ladder-title">Renditions</h2>
        {video.encodings.length === 0 ? (
          <p class="muted">No renditions yet.</p>
        ) : (
          <table data-testid="encoding-ladder">
            <thead>
              <tr>
                <th>Rendition</th>
                <th>Codec</th>
                <th>Size</th>
                <th>Bitrate</th>
                <th>VMAF</th>
                <th>Audio</th>
                <th>Frame rate</th>
              </tr>
            </thead>
            <tbody>
              {video.encodings.map((encoding) => (
                <tr key={encoding.key} data-testid="encoding-row">
                  <td>{encoding.key}</td>
                  <td data-testid="encoding-codec">
                    {encoding.shortEdgePixels === 0 ? '—' : videoCodecLabels[encoding.videoCodec]}
                  </td>
                  <td>
                    {encoding.shortEdgePixels === 0
                      ? 'audio only'
                      : `${encoding.shortEdgePixels} px ${encoding.shortEdgeIsWidth ? 'wide' : 'high'}`}
                  </td>
                  <td data-testid="encoding-bitrate">
                    <Bitrate encoding={encoding} />
                  </td>
                  <td data-testid="encoding-vmaf">{encoding.vmaf === undefined ? '—' : encoding.vmaf.toFixed(2)}</td>
                  <td>
                    {labelOf(audioCodecLabels, encoding.audioFormat)} {encoding.audioStreamBitrate} kbps
                  </td>
                  <td>{frameRateLabel(encoding.maxFrameRate)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

/**
 * A rendition's bitrate: the average measured over the whole rendition (audio included) when the
 * farm kept it, else the ladder's target for the video stream, each labelled as what it is.
 */
function Bitrate({ encoding }: { encoding: Encoding }) {
  if (encoding.averageBitrate === undefined) {
    return (
      <span title="The ladder's target for the video stream; not measured">
        {encoding.videoStreamBitrate} kbps <span class="muted">ladder</span>
      </span>
    );
  }
  return (
    <span
      title={`Measured over the whole rendition, audio included; the ladder's target is ${encoding.videoStreamBitrate} kbps`}
    >
      {encoding.averageBitrate} kbps <span class="muted">measured</span>
    </span>
  );
}
