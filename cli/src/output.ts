// What people read: tables (dates as dates, numbers right-aligned) on stdout, and progress on
// stderr only when stderr is a terminal (piped or redirected, it stays silent).
import type { TableOptions } from '@oclif/table';

export interface Column<T> {
  key: keyof T & string;
  name: string;
  /** Right-aligned (numbers); left otherwise. */
  numeric?: boolean;
}

/** `2026-11-23T04:00:05.123Z` → `2026-11-23 04:00 UTC`; empty and invalid stay as they are. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Seconds as `1:02:03` or `2:03`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const parts = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const [h, m, sec] = parts as [number, number, number];
  return h > 0
    ? `${h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`
    : `${m}:${String(sec).padStart(2, '0')}`;
}

export function formatNumber(value: number): string {
  return Number.isInteger(value)
    ? value.toLocaleString('en-US')
    : value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** Prints rows as a table on stdout; `empty` instead when there are none. */
export async function printTable<T extends Record<string, unknown>>(
  rows: T[],
  columns: Column<T>[],
  empty = 'nothing to show',
): Promise<void> {
  if (rows.length === 0) {
    process.stdout.write(`${empty}\n`);
    return;
  }
  const { printTable: print } = await import('@oclif/table');
  const options: TableOptions<T> = {
    data: rows,
    columns: columns.map((column) => ({
      key: column.key,
      name: column.name,
      horizontalAlignment: column.numeric ? 'right' : 'left',
    })) as TableOptions<T>['columns'],
    headerOptions: { formatter: (header: string) => header },
    borderStyle: 'headers-only-with-underline',
    overflow: 'wrap',
    // Not a terminal (a pipe, a file): no colours.
    noStyle: !process.stdout.isTTY,
  };
  print(options);
}

/** Whether progress (bars, spinners) is shown: only on a terminal. */
export function showsProgress(): boolean {
  return Boolean(process.stderr.isTTY);
}
