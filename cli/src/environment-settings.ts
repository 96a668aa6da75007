// An environment's just-in-time setting as the CLI writes it, in flags and tables: `on`, `off`, or
// `default` (null in the API: the farm's default). Imports nothing: commands read it at load time.

export const justInTimeSettings = { on: true, off: false, default: null } as const;

export type JustInTimeWord = keyof typeof justInTimeSettings;

export const justInTimeWords = Object.keys(justInTimeSettings) as JustInTimeWord[];

/** true → `on`, false → `off`, null → `default`. */
export function justInTimeWord(setting: boolean | null): JustInTimeWord {
  return setting === null ? 'default' : setting ? 'on' : 'off';
}
