// bench/quality: bits, VMAF and encode CPU of the `standard` ladder (360p 500, 480p 1000, 720p 2500
// kb/s) on a corpus of six kinds of content this script makes itself, for each way Kino can encode it:
//
// - fixed: today's ladder (variable bitrate at the rung's value, peaks 1.5x), x264 `veryfast` (the
//   default compression ratio);
// - contentAware, capped CRF: x264 at a constant quality (each CRF of BENCH_CRFS), peaks capped at
//   the rung's value over a 2 s buffer, one pass: the method the ladder uses (docs/decisions/quality.md);
// - contentAware, quantizer floor: the fixed rate control with x264's `qpmin` at each of BENCH_QMINS:
//   hard content gets exactly the fixed encode, easy content stops spending once it reaches it;
// - hevc and av1 (additionalCodecs): x265 and SVT-AV1 with the fixed ladder's rate control at
//   fractions of the rungs' bitrates (0.5, 0.7, 1), so that the bits each codec needs for the VMAF
//   the H.264 ladder reaches can be read off between them (log-bitrate, linear in VMAF). Points at
//   constant qualities did not bracket H.264's VMAF on hard content (docs/decisions/quality.md).
//
// Every encode is the encode nodes' own command (@kino/ffmpeg: hlsLadderArgs, one decode split into
// the three renditions, HLS fMP4 out), H.264 and HEVC by Debian's ffmpeg, AV1 by the quality ffmpeg
// (SVT-AV1 4; Debian's 1.4 ignores forced keyframes). VMAF (vmaf_v0.6.1) and luma PSNR of each
// rendition against the source, both scaled to 1280x720 (qualityArgs). CPU: the ffmpeg process's
// user + sys (the shell's `times`), so the machine's other load moves it little.
//
// The corpus, 1280x720 at 30 fps, BENCH_SECONDS long, lossless (x264 -qp 0), made with lavfi
// sources and kept under node_modules/.cache/kino/quality-corpus:
//   slides      text and a bar chart on a light background, a new slide every few seconds
//   screen      a code editor scrolling, a moving cursor
//   animation   flat-colour shapes moving over a flat sky and ground
//   grain       a slowly zooming fractal under strong temporal grain (film-like noise)
//   motion      a detailed test picture scrolling and swaying fast, light noise
//   dark        dim low-contrast gradients with slow dim shapes and a little noise
//
// Usage: npm run bench:quality
// Env: BENCH_SECONDS (6), BENCH_KINDS (all six), BENCH_CRFS (the capped CRFs to try: 18,20,22),
//      BENCH_QMINS (quantizer floors to try under the fixed rate control: 18,20,22),
//      BENCH_HEVC_RATES and BENCH_AV1_RATES (0.5,0.7,1: each codec's points, as fractions of the rungs' bitrates),
//      BENCH_SUBSAMPLE (3: VMAF of every 3rd frame),
//      BENCH_EXTRA_CODEC_SPEED (x264's name for the HEVC and AV1 encodes' speed, e.g. medium: SVT-AV1 8;
//      default: the ladder's, veryfast: SVT-AV1 11).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findQualityFfmpeg } from '@kino/dev';
import { hlsLadderArgs, parseMediaPlaylist, parseQualityLog, qualityArgs, type HlsEncodeSettings } from '@kino/ffmpeg';
import { planLadder } from '@kino/orchestrator';
import {
  defaultEncodingParameters,
  hlsInitName,
  hlsPlaylistName,
  type VideoCodec,
  type X264Preset,
} from '@kino/proto/contract';

const run = promisify(execFile);
const log = (line: string) => process.stderr.write(`${line}\n`);
const list = (value: string | undefined, fallback: string) => (value ?? fallback).split(',').filter(Boolean);

const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const kinds = list(process.env.BENCH_KINDS, 'slides,screen,animation,grain,motion,dark');
const crfs = list(process.env.BENCH_CRFS, '18,20,22').map(Number);
const qmins = list(process.env.BENCH_QMINS, '18,20,22').map(Number);
const hevcRates = list(process.env.BENCH_HEVC_RATES, '0.5,0.7,1').map(Number);
const av1Rates = list(process.env.BENCH_AV1_RATES, '0.5,0.7,1').map(Number);
const subsample = Number(process.env.BENCH_SUBSAMPLE ?? 3);
/** The x264 speed name the extra codecs are encoded at (SVT-AV1's preset follows svtAv1PresetOf); default: the ladder's. */
const extraCodecSpeed = process.env.BENCH_EXTRA_CODEC_SPEED as X264Preset | undefined;
const width = 1280;
const height = 720;
const fps = 30;
const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';
const monoFont = '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf';

/** The lavfi graph of each kind of content (see the top of this file). */
function corpusGraph(kind: string, codeFile: string): string {
  const size = `s=${width}x${height}:r=${fps}:d=${seconds}`;
  const text = (t: string, x: number, y: number, fontsize: number, when: string, color = '0x202040') =>
    `drawtext=fontfile=${font}:text='${t}':x=${x}:y=${y}:fontsize=${fontsize}:fontcolor=${color}:enable='${when}'`;
  switch (kind) {
    case 'slides':
      return [
        `color=c=0xf4f4ee:${size}`,
        text('Quarterly results', 80, 60, 60, 'lt(mod(t,8),4)'),
        text('Revenue grew in every region', 100, 170, 34, 'lt(mod(t,8),4)'),
        text('Costs held flat against plan', 100, 230, 34, 'lt(mod(t,8),4)'),
        `drawbox=x=140:y=420:w=120:h=220:color=0x3060c0:t=fill:enable='lt(mod(t,8),4)'`,
        `drawbox=x=320:y=360:w=120:h=280:color=0x3060c0:t=fill:enable='lt(mod(t,8),4)'`,
        `drawbox=x=500:y=300:w=120:h=340:color=0xc06030:t=fill:enable='lt(mod(t,8),4)'`,
        text('Roadmap for next year', 80, 60, 60, 'gte(mod(t,8),4)'),
        text('1. Faster uploads from phones', 100, 200, 34, 'gte(mod(t,8),4)'),
        text('2. Captions in twelve languages', 100, 260, 34, 'gte(mod(t,8),4)'),
        text('3. A player that starts at once', 100, 320, 34, 'gte(mod(t,8),4)'),
        text(
          'Small print - figures are unaudited and may change before the annual report.',
          100,
          660,
          18,
          '1',
          '0x606060',
        ),
      ].join(',');
    case 'screen':
      return [
        `color=c=0x1e1e1e:${size}`,
        `drawtext=fontfile=${monoFont}:textfile=${codeFile}:x=60:y='40-t*45':fontsize=20:fontcolor=0xd4d4d4:line_spacing=6`,
        `drawbox=x=0:y=0:w=44:h=${height}:color=0x252526:t=fill`,
        `drawbox=x='400+200*sin(t*1.3)':y='300+120*cos(t)':w=10:h=18:color=white:t=fill`,
      ].join(',');
    case 'animation':
      return [
        `color=c=0x87ceeb:${size}`,
        `drawbox=x=0:y=520:w=${width}:h=200:color=0x4caf50:t=fill`,
        `drawbox=x='mod(t*180,${width + 200})-200':y=440:w=200:h=90:color=0xe53935:t=fill`,
        `drawbox=x='${width}-mod(t*120,${width + 160})':y=470:w=160:h=60:color=0xfdd835:t=fill`,
        `drawbox=x='300+200*sin(t)':y='120+40*sin(t*3)':w=140:h=140:color=0xffeb3b:t=fill`,
        `drawbox=x='mod(t*60,${width})':y=80:w=260:h=60:color=white:t=fill`,
      ].join(',');
    case 'grain':
      return `mandelbrot=s=${width}x${height}:r=${fps}:maxiter=256:start_scale=1.2:end_scale=0.6:end_pts=${seconds},trim=duration=${seconds},eq=saturation=0.7,noise=alls=10:allf=t+u`;
    case 'motion':
      return `testsrc2=${size},scroll=h=0.008:v=0.004,rotate=a='0.12*sin(t*2.5)':fillcolor=0x303030,noise=alls=3:allf=t`;
    case 'dark':
      return [
        `gradients=s=${width}x${height}:r=${fps}:d=${seconds}:speed=0.015:n=4:c0=0x0c1218:c1=0x26303a:c2=0x1a2228:c3=0x30302c`,
        `drawbox=x='300+80*sin(t*0.7)':y=260:w=240:h=300:color=0x3a3a40:t=fill`,
        `drawbox=x='760+60*cos(t*0.5)':y=200:w=180:h=380:color=0x2c3036:t=fill`,
        'noise=alls=4:allf=t',
      ].join(',');
    default:
      throw new Error(`unknown kind of content ${kind}`);
  }
}

/** The corpus file of one kind, made once (lossless) and kept. */
async function corpusFile(kind: string): Promise<string> {
  const dir = join(process.cwd(), 'node_modules', '.cache', 'kino', 'quality-corpus');
  const path = join(dir, `${kind}-${seconds}s-${width}x${height}.mkv`);
  if (existsSync(path)) return path;
  await mkdir(dir, { recursive: true });
  const codeFile = join(dir, 'code.txt');
  const code = Array.from(
    { length: 60 },
    (_, i) =>
      `${String(i + 1).padStart(3)}  ${i % 7 === 0 ? 'export async function' : '    const'} value${i} = await load(items[${i}], { retries: ${i % 5}, timeoutMs: ${1000 + i * 37} });`,
  ).join('\n');
  await writeFile(codeFile, code);
  log(`making the ${kind} source (${seconds} s, ${width}x${height}, ${fps} fps, lossless)`);
  await run(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      corpusGraph(kind, codeFile),
      '-t',
      String(seconds),
      '-c:v',
      'libx264',
      '-qp',
      '0',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      `${path}.partial.mkv`,
    ],
    { maxBuffer: 16 << 20 },
  );
  await rename(`${path}.partial.mkv`, path);
  return path;
}

/** Runs an ffmpeg and returns its CPU seconds (user + sys) from the shell's `times`. */
async function cpuSecondsOf(binary: string, args: string[], cwd: string): Promise<number> {
  const script = '"$0" -hide_banner -loglevel error -y "$@" >/dev/null || exit 1; times';
  const { stdout } = await run('sh', ['-c', script, binary, ...args], { cwd, maxBuffer: 16 << 20 });
  const children = stdout.trim().split('\n').at(-1)!;
  return children
    .split(/\s+/)
    .map((t) => /(\d+)m([\d.]+)s/.exec(t)!)
    .reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
}

interface Variant {
  name: string;
  codec: VideoCodec;
  /** Undefined: fixed (variable bitrate at the rung). */
  crf?: number;
  /** The fixed ladder's rate control with a quantizer floor. */
  qmin?: number;
  /** How far above the rung the cap sits (1: the content-aware ladder; more: the codec comparison). */
  /** The rungs' bitrates times this (1: the ladder's; less: a codec's points below it). */
  rateFactor: number;
}

interface Measured {
  kind: string;
  variant: Variant;
  cpuSeconds: number;
  renditions: { key: string; kbps: number; vmaf: number; psnr: number }[];
}

async function measure(
  kind: string,
  source: string,
  variant: Variant,
  work: string,
  qualityFfmpeg: string,
): Promise<Measured> {
  const ladder = planLadder('standard', { width, height, frameRate: fps, hasAudio: false }, defaultEncodingParameters);
  const dir = join(work, kind, variant.name);
  await mkdir(dir, { recursive: true });
  const outputs = ladder.map((rung) => {
    const settings: HlsEncodeSettings = {
      width: rung.width,
      height: rung.height,
      frameRate: fps,
      capFrameRate: false,
      pixelFormat: 'yuv420p',
      videoCodec: variant.codec,
      x264Preset: variant.codec !== 'h264' && extraCodecSpeed ? extraCodecSpeed : rung.x264Preset,
      videoBitrateKbps: Math.round(rung.videoBitrateKbps * variant.rateFactor),
      rateControl: 'variableBitrate',
      twoPass: false,
      segmentSeconds: rung.segmentSeconds,
      ...(variant.crf === undefined ? {} : { constantQuality: variant.crf }),
      ...(variant.qmin === undefined ? {} : { minQuantizer: variant.qmin }),
    };
    return { settings, dir: rung.key };
  });
  for (const { dir: sub } of outputs) await mkdir(join(dir, sub), { recursive: true });
  const args = hlsLadderArgs({ input: source, outputs, threads: 0, videoSeconds: seconds });
  const cpuSeconds = await cpuSecondsOf(variant.codec === 'av1' ? qualityFfmpeg : 'ffmpeg', args, dir);
  const renditions = [];
  for (const { dir: key } of outputs) {
    const renditionDir = join(dir, key);
    const playlist = parseMediaPlaylist(await readFile(join(renditionDir, hlsPlaylistName), 'utf8'));
    // The rendition as one file (init + segments): what a player decodes, for the quality ffmpeg to read.
    const parts = [hlsInitName, ...playlist.segments.map((segment) => segment.uri)];
    const whole = join(dir, `${key}.mp4`);
    await writeFile(whole, Buffer.concat(await Promise.all(parts.map((name) => readFile(join(renditionDir, name))))));
    let bytes = 0;
    for (const segment of playlist.segments) bytes += (await stat(join(renditionDir, segment.uri))).size;
    const duration = playlist.segments.reduce((sum, segment) => sum + segment.durationSeconds, 0);
    const logPath = join(dir, `${key}-vmaf.json`);
    await run(
      qualityFfmpeg,
      qualityArgs({
        renditions: [{ input: whole, logPath }],
        reference: source,
        width,
        height,
        threads: cpus().length,
        subsample,
      }),
      { maxBuffer: 16 << 20 },
    );
    const score = parseQualityLog(await readFile(logPath, 'utf8'));
    renditions.push({ key, kbps: (bytes * 8) / 1000 / duration, vmaf: score.vmaf, psnr: score.psnr });
  }
  return { kind, variant, cpuSeconds, renditions };
}

/**
 * Bits a codec needs for `vmaf`, from its points: between two points, log-bitrate linear in VMAF
 * (`read`); below every point, the fewest bits of any point that reaches it (`atMost`: a bound, so
 * the saving it counts is the least the codec makes); above every point, extrapolated from the top
 * two and never less than the top point's bits (`beyond`). Extrapolating below the points instead
 * made nonsense where VMAF hardly moves with bits (slides: VMAF 97.39 at 154 kb/s and 97.40 at 151).
 */
function kbpsAtVmaf(
  points: { kbps: number; vmaf: number }[],
  vmaf: number,
): { kbps: number; how: 'read' | 'atMost' | 'beyond' } {
  const sorted = [...points].sort((x, y) => x.vmaf - y.vmaf);
  if (vmaf <= sorted[0]!.vmaf) return { kbps: Math.min(...sorted.map((p) => p.kbps)), how: 'atMost' };
  const top = sorted.at(-1)!;
  const i = sorted.findIndex((p) => p.vmaf >= vmaf);
  const [a, b] = i < 0 ? [sorted.at(-2)!, top] : [sorted[i - 1]!, sorted[i]!];
  const f = b.vmaf - a.vmaf < 1e-6 ? 1 : (vmaf - a.vmaf) / (b.vmaf - a.vmaf);
  const kbps = Math.exp(Math.log(a.kbps) + f * (Math.log(b.kbps) - Math.log(a.kbps)));
  return i < 0 ? { kbps: Math.max(kbps, top.kbps), how: 'beyond' } : { kbps, how: 'read' };
}

const pad = (rows: string[][]) => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  '));
};

async function main(): Promise<void> {
  const qualityFfmpeg = findQualityFfmpeg();
  const work = await mkdtemp(join(tmpdir(), 'kino-bench-quality-'));
  const variants: Variant[] = [
    { name: 'fixed', codec: 'h264', rateFactor: 1 },
    ...crfs.map((crf) => ({ name: `contentAware crf ${crf}`, codec: 'h264' as const, crf, rateFactor: 1 })),
    ...qmins.map((qmin) => ({ name: `contentAware qmin ${qmin}`, codec: 'h264' as const, qmin, rateFactor: 1 })),
    ...hevcRates.map((rate) => ({ name: `hevc ${rate}x`, codec: 'hevc' as const, rateFactor: rate })),
    ...av1Rates.map((rate) => ({ name: `av1 ${rate}x`, codec: 'av1' as const, rateFactor: rate })),
  ];
  log(
    `bench/quality: ${kinds.length} kinds x ${variants.length} encodes of the standard ladder, ${seconds} s each, ${cpus().length} cores, VMAF of every ${subsample === 1 ? '' : `${subsample}th `}frame; work in ${work}`,
  );
  const results: Measured[] = [];
  try {
    for (const kind of kinds) {
      const source = await corpusFile(kind);
      for (const variant of variants) {
        const measured = await measure(kind, source, variant, work, qualityFfmpeg);
        results.push(measured);
        log(
          `  ${kind}, ${variant.name}: ${measured.cpuSeconds.toFixed(1)} CPU s; ${measured.renditions.map((r) => `${r.key} ${r.kbps.toFixed(0)} kb/s VMAF ${r.vmaf.toFixed(2)}`).join(', ')}`,
        );
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  const of = (kind: string, name: string) => results.find((r) => r.kind === kind && r.variant.name === name)!;
  console.log(
    `\nbench/quality: standard ladder, ${seconds} s of ${width}x${height} ${fps} fps per kind, x264/x265 ${defaultEncodingParameters.compressionRatio}, VMAF vmaf_v0.6.1 at ${width}x${height} (every ${subsample}th frame)\n`,
  );
  const rows = [['kind', 'encode', 'CPU s', ...['360p', '480p', '720p'].flatMap((k) => [`${k} kb/s`, `${k} VMAF`])]];
  for (const r of results)
    rows.push([
      r.kind,
      r.variant.name,
      r.cpuSeconds.toFixed(1),
      ...r.renditions.flatMap((x) => [x.kbps.toFixed(0), x.vmaf.toFixed(2)]),
    ]);
  pad(rows);

  // The content-aware goals, per CRF: whole-ladder bits, the worst VMAF loss of any rendition of any kind, CPU.
  console.log('');
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const ladderKbps = (r: Measured) => sum(r.renditions.map((x) => x.kbps));
  for (const name of [
    ...crfs.map((crf) => `contentAware crf ${crf}`),
    ...qmins.map((qmin) => `contentAware qmin ${qmin}`),
  ]) {
    const bits = sum(kinds.map((k) => ladderKbps(of(k, name)))) / sum(kinds.map((k) => ladderKbps(of(k, 'fixed'))));
    const losses = kinds.flatMap((k) =>
      of(k, name).renditions.map((x, i) => ({
        kind: k,
        key: x.key,
        loss: of(k, 'fixed').renditions[i]!.vmaf - x.vmaf,
      })),
    );
    const worst = losses.sort((a, b) => b.loss - a.loss)[0]!;
    const cpu = sum(kinds.map((k) => of(k, name).cpuSeconds)) / sum(kinds.map((k) => of(k, 'fixed').cpuSeconds));
    const perKind = kinds
      .map((k) => `${k} ${((ladderKbps(of(k, name)) / ladderKbps(of(k, 'fixed')) - 1) * 100).toFixed(0)} %`)
      .join(', ');
    console.log(
      `goal, ${name} vs fixed: bits ${((bits - 1) * 100).toFixed(1)} % (<= -25 %: ${bits <= 0.75 ? 'met' : 'NOT met'}); ` +
        `worst VMAF loss ${worst.loss.toFixed(2)} (${worst.kind} ${worst.key}; <= 1: ${worst.loss <= 1 ? 'met' : 'NOT met'}); CPU ${((cpu - 1) * 100).toFixed(1)} % (<= +30 %: ${cpu <= 1.3 ? 'met' : 'NOT met'}); by kind: ${perKind}`,
    );
  }
  // Each extra codec: the bits it needs for the VMAF of the H.264 ladder (fixed), over the corpus.
  for (const [codec, rates] of [
    ['hevc', hevcRates],
    ['av1', av1Rates],
  ] as const) {
    if (rates.length < 2) continue;
    let needed = 0;
    let h264 = 0;
    const how = { read: 0, atMost: 0, beyond: 0 };
    for (const k of kinds) {
      of(k, 'fixed').renditions.forEach((reference, i) => {
        const at = kbpsAtVmaf(
          rates.map((rate) => of(k, `${codec} ${rate}x`).renditions[i]!),
          reference.vmaf,
        );
        needed += at.kbps;
        h264 += reference.kbps;
        how[at.how]++;
      });
    }
    const cpu =
      sum(kinds.map((k) => sum(rates.map((rate) => of(k, `${codec} ${rate}x`).cpuSeconds)) / rates.length)) /
      sum(kinds.map((k) => of(k, 'fixed').cpuSeconds));
    console.log(
      `${codec === 'av1' ? 'goal, ' : ''}${codec} at the H.264 ladder's VMAF: bits ${((needed / h264 - 1) * 100).toFixed(1)} %` +
        (codec === 'av1' ? ` (<= -30 %: ${needed / h264 <= 0.7 ? 'met' : 'NOT met'})` : '') +
        `; encode CPU ${cpu.toFixed(1)}x H.264's; of ${kinds.length * 3} renditions, ${how.read} read between points, ${how.atMost} bounded (every point at or above H.264's VMAF), ${how.beyond} extrapolated above the points`,
    );
  }
  console.log(`load average at the end: ${(await readFile('/proc/loadavg', 'utf8')).trim()}`);
}

await main();
