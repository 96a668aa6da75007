"""The speech engine of an encode node (docs/decisions/captions.md): faster-whisper over a
CTranslate2 Whisper model directory. The node runs it as a child process, one per job; it reads
nothing from the network (the model is a local directory, the audio a local file).

  transcribe.py describe --model DIR
      prints {"languages": [...]}: what the model transcribes (an English-only model: ["en"]).
  transcribe.py run --model DIR --audio FILE --language auto|CODE --threads N
      prints JSON lines: {"progress": seconds done} while it works, then one
      {"result": {"language", "durationSeconds", "cpuSeconds", "words": [{"start", "end", "text"}]}}.

Words, not sentences, go back: the node cuts cues from them (encode-node/src/jobs/transcribe.ts),
so the rule of where a cue ends lives in one place, in TypeScript.
"""

import argparse
import json
import sys
import time


def emit(message):
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def load(model_dir, threads):
    from faster_whisper import WhisperModel

    return WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=threads, num_workers=1)


def describe(args):
    model = load(args.model, 1)
    emit({"languages": list(model.supported_languages)})


def run(args):
    model = load(args.model, args.threads)
    language = None if args.language == "auto" else args.language
    segments, info = model.transcribe(
        args.audio,
        language=language,
        beam_size=5,
        word_timestamps=True,
        # Silence and music between sentences: skipped rather than "transcribed" (Whisper invents words there).
        vad_filter=True,
        condition_on_previous_text=False,
    )
    words = []
    for segment in segments:
        for word in segment.words or []:
            words.append({"start": word.start, "end": word.end, "text": word.word})
        emit({"progress": round(segment.end, 3)})
    snap_to_speech_onsets(words, args.audio)
    for word in words:
        word["start"], word["end"] = round(word["start"], 3), round(word["end"], 3)
    # CPU seconds of this process, model load included: what a job costs a core (the bench's figure).
    cpu = round(time.process_time(), 3)
    emit({"result": {"language": info.language, "durationSeconds": round(info.duration, 3), "cpuSeconds": cpu, "words": words}})


def snap_to_speech_onsets(words, audio_path):
    """Whisper's word times (attention alignment) drift by up to half a second; the voice activity
    detector's onsets do not. A word that starts speech after a pause (the first after an onset)
    starts at the onset, when the onset is within 0.7 s of it: cues then start when the voice does.
    Pauses of 0.3 s count (the detector's default, 2 s, would merge most sentences of a talk)."""
    from faster_whisper.audio import decode_audio
    from faster_whisper.vad import VadOptions, get_speech_timestamps

    rate = 16000
    chunks = get_speech_timestamps(decode_audio(audio_path, sampling_rate=rate), VadOptions(speech_pad_ms=0, min_silence_duration_ms=300))
    onsets = [chunk["start"] / rate for chunk in chunks]
    for onset in onsets:
        after = [w for w in words if w["end"] > onset]
        if not after:
            continue
        first = after[0]
        if abs(first["start"] - onset) <= 0.7 and onset < first["end"]:
            first["start"] = onset


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    describe_parser = commands.add_parser("describe")
    describe_parser.add_argument("--model", required=True)
    run_parser = commands.add_parser("run")
    run_parser.add_argument("--model", required=True)
    run_parser.add_argument("--audio", required=True)
    run_parser.add_argument("--language", default="auto")
    run_parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    describe(args) if args.command == "describe" else run(args)


if __name__ == "__main__":
    main()
