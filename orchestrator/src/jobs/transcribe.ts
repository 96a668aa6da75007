// The transcription job (docs/decisions/captions.md): the speech of a source, or of one piece of a
// long source, made into words by a node's speech engine; then the pieces' words joined and cut into
// one WebVTT file (joinTranscript). A piece waits in the encode queue like an encode, for a slot on a
// node whose engine transcribes the language asked (JobNeeds.transcribeLanguage) and that carries
// the video's node labels; a node lost mid-piece is a retry of that piece on another, as for any
// encode.
import {
  captionContentTypes,
  cuesFromWords,
  joinTranscriptPieces,
  objectKeys,
  renderWebVtt,
  workContentTypes,
  type JobNeeds,
  type TranscribedWords,
  type TranscriptPiece,
} from '@kino/proto/contract';
import type { Storage } from '@kino/infra';
import { randomBase62 } from '@kino/infra';
import { urlLifetimeSeconds } from './presign.ts';
import { runJobOnNode, type NodeJobDeps } from './run-on-node.ts';
import { whileHeartbeating } from '../activities/heartbeat.ts';

/** The engine runs at about a third of real time on one core (docs/decisions/captions.md): 2 h of video in 40 min. */
const transcribeCallTimeoutMs = 3 * 60 * 60_000;

export interface TranscribeInput {
  videoId: string;
  storagePath: string;
  /** A BCP 47 tag, or `auto`. */
  language: string;
  nodeLabels?: string[];
  /** The run's own name (objectKeys.transcriptPiece): its pieces' words are kept apart from any other run's. */
  run: string;
  piece: TranscriptPiece;
}

export interface TranscribeOutcome {
  /** The language transcribed: the one asked, or the one detected for `auto`. */
  language: string;
  /** The words the node wrote (TranscribedWords). */
  wordsKey: string;
  words: number;
}

export async function transcribeSpeech(deps: NodeJobDeps, input: TranscribeInput): Promise<TranscribeOutcome> {
  const { storage } = deps;
  const wordsKey = objectKeys.transcriptPiece(input.videoId, input.run, input.piece.index);
  const lifetime = urlLifetimeSeconds();
  const [inputUrl, wordsUrl] = await Promise.all([
    storage.presignGet(input.storagePath, lifetime),
    storage.presignPut(wordsKey, lifetime, workContentTypes.transcriptPiece),
  ]);
  const needs: JobNeeds = {
    transcribeLanguage: input.language,
    ...(input.nodeLabels?.length ? { labels: input.nodeLabels } : {}),
  };
  // A slot's job heartbeats on its own (runJobOnNode leaves that to encodes' progress): the node
  // answers once, at the end.
  const result = await runJobOnNode(deps, input.videoId, 'transcription', { slot: true, placement: { needs } }, (job) =>
    whileHeartbeating(
      () =>
        deps.farm.client(job.node).transcribe(
          {
            jobId: job.jobId,
            inputUrl,
            language: input.language,
            startSeconds: input.piece.startSeconds,
            endSeconds: input.piece.endSeconds,
            wordsUrl,
          },
          { signal: job.signal, timeoutMs: transcribeCallTimeoutMs },
        ),
      () => ({ nodeId: job.node.nodeId, what: 'transcription' }),
    ),
  );
  return { language: result.language, wordsKey, words: result.words };
}

export interface JoinTranscriptInput {
  videoId: string;
  /** The track's language (the file's key names it). */
  language: string;
  /** Each piece with the words its node wrote, in any order. */
  pieces: { piece: TranscriptPiece; wordsKey: string }[];
}

export interface JoinedTranscript {
  /** The WebVTT file of the whole video. */
  key: string;
  sizeBytes: number;
  cues: number;
}

/**
 * The pieces' words joined at their seams (joinTranscriptPieces), cut into cues once over the whole
 * video (so cues follow the same rule as a video transcribed whole), written as one WebVTT file; the
 * pieces' words are removed.
 */
export async function joinTranscript(storage: Storage, input: JoinTranscriptInput): Promise<JoinedTranscript> {
  const heard = await Promise.all(
    input.pieces.map(async ({ piece, wordsKey }) => {
      const body = await storage.get(wordsKey);
      if (!body) throw new Error(`the words of transcript piece ${piece.index} are not in storage (${wordsKey})`);
      const { words } = JSON.parse(body.toString('utf8')) as TranscribedWords;
      return { startSeconds: piece.startSeconds, endSeconds: piece.endSeconds, words };
    }),
  );
  const cues = cuesFromWords(joinTranscriptPieces(heard));
  const vtt = renderWebVtt({ preamble: [], cues });
  const key = objectKeys.caption(input.videoId, input.language, `generated-${randomBase62(12)}`);
  await storage.put(key, vtt, captionContentTypes.vtt);
  await storage.deleteMany(input.pieces.map(({ wordsKey }) => wordsKey));
  return { key, sizeBytes: Buffer.byteLength(vtt), cues: cues.length };
}
