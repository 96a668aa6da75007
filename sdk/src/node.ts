// @kino/sdk/node: the core client plus what needs Node's file system (Bun and Deno provide the same
// modules): file paths as upload sources, a resume store on disk, and the dev stack's dev.json.
import { createHash } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { chmod, mkdir, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
// The core only through its entry: the build keeps `./index.ts` outside this file's bundle, so the
// core's classes (KinoError, Kino, ...) exist once whichever entry a program imports.
import {
  Kino as CoreKino,
  KinoError,
  type DevStackInfo,
  type FileAccess,
  type KinoOptions,
  type UploadResumeStore,
} from './index.ts';

export * from './index.ts';

/** Opens a file as a Blob backed by it (sent slice by slice, never read into memory whole). */
export const nodeFileAccess: FileAccess = {
  async open(path) {
    const real = await realpath(path);
    const info = await stat(real);
    return { blob: await openAsBlob(real), fingerprint: `${real}:${info.size}:${info.mtimeMs}` };
  },
};

/**
 * The Kino client with Node's file system: `uploads.upload` and `putFile` take file paths, and
 * `Kino.fromDevStack()` reads the dev stack's `.kino/dev.json`.
 * @example
 * import { Kino } from '@kino/sdk/node';
 * const kino = new Kino({ apiUrl: 'https://kino.example.com/v1/api', apiKey: process.env.KINO_API_KEY });
 * const file = await kino.uploads.upload('org_123', 'env_456', './talk.mp4');
 */
export class Kino extends CoreKino {
  protected static override fileAccess: FileAccess | undefined = nodeFileAccess;

  /**
   * A client for the local dev stack (`npm run dev`), from its `.kino/dev.json`: found through
   * `path`, then KINO_DEV_DIR, then the nearest `.kino/dev.json` above the working directory.
   * @example
   * const kino = await Kino.fromDevStack();
   * const { orgId, envId } = kino.devStack!;
   * for await (const video of kino.videos.list(orgId, envId)) console.log(video.id);
   */
  static async fromDevStack(options: Omit<KinoOptions, 'apiUrl' | 'apiKey'> & { path?: string } = {}): Promise<Kino> {
    const candidates: string[] = [];
    if (options.path) candidates.push(resolve(options.path));
    else if (process.env.KINO_DEV_DIR) candidates.push(join(resolve(process.env.KINO_DEV_DIR), 'dev.json'));
    else {
      for (let dir = process.cwd(); ; dir = dirname(dir)) {
        candidates.push(join(dir, '.kino', 'dev.json'));
        if (dirname(dir) === dir) break;
      }
    }
    for (const candidate of candidates) {
      let text: string;
      try {
        text = await readFile(candidate, 'utf8');
      } catch {
        continue;
      }
      const info = JSON.parse(text) as DevStackInfo;
      if (!info.apiUrl || !info.apiKey)
        throw new KinoError(`${candidate} has no apiUrl/apiKey: is the dev stack fully up?`);
      const { path: _path, ...rest } = options;
      return new Kino({ ...rest, apiUrl: info.apiUrl, apiKey: info.apiKey }, info);
    }
    throw new KinoError(
      `no dev stack found (looked for ${candidates[0]}${candidates.length > 1 ? ' and above' : ''}): start one with \`npm run dev\``,
    );
  }
}

/**
 * A resume store on disk: one JSON file per upload under way in `dir` (created with mode 700),
 * each readable by its owner only (mode 600), removed when the upload completes.
 * @example
 * import { Kino, fileResumeStore } from '@kino/sdk/node';
 * const resumeStore = fileResumeStore(join(os.homedir(), '.cache', 'kino', 'uploads'));
 * await kino.uploads.upload(orgId, envId, './film.mov', { resumeStore }); // a rerun after Ctrl-C resumes
 */
export function fileResumeStore(dir: string): UploadResumeStore {
  // The key is hashed into the name: whatever it holds, the name is a safe file name.
  const fileOf = (key: string) => join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`);
  return {
    async get(key) {
      try {
        return JSON.parse(await readFile(fileOf(key), 'utf8')) as unknown;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return undefined;
        throw error;
      }
    },
    async set(key, state) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const file = fileOf(key);
      await writeFile(file, JSON.stringify(state), { mode: 0o600 });
      await chmod(file, 0o600); // an existing file keeps its mode on write
    },
    async delete(key) {
      await rm(fileOf(key), { force: true });
    },
  };
}
