// The analytics store, reached through the official ClickHouse client (`@clickhouse/client`) over
// ClickHouse's HTTP interface. In the dev stack the URL points at the chDB-backed analytics process
// (`kino analytics-store`, dev/src/analytics/chdb-http-server.ts); in production at a ClickHouse server.
// Kino needs five operations (a statement, a SELECT, an INSERT of rows or of rows already encoded,
// a SELECT's rows as encoded, for backups), named here once so that every caller sends the same settings.
//
// The SQL Kino sends must run on chDB 26 and on ClickHouse 18.16 (Debian's package) alike: no query
// parameters, no DateTime64, no LowCardinality, no TTL, no JSONCompactEachRow. What the client sends
// runs on both: the query in the POST body (`FORMAT JSON` appended for SELECTs), an INSERT's
// rows as the body with the query in the URL, and `query_id` and the one setting below in the URL.
import { Readable } from 'node:stream';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';

/** `YYYY-MM-DD hh:mm:ss` in UTC: the DateTime text both engines parse. */
export function toClickHouseDateTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

/** Quotes a string as a ClickHouse string literal (for the few values Kino puts into SQL text). */
export function clickHouseString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

const tabSeparatedSpecial = /[\\\t\n\r]/;
const tabSeparatedEscapes: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A string as a field of ClickHouse's TabSeparated format: backslash, tab, newline and carriage
 * return escaped (the escapes ClickHouse 18.16 and 26 both read back), anything else as it is.
 */
export function tabSeparatedField(value: string): string {
  return tabSeparatedSpecial.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => tabSeparatedEscapes[c]!) : value;
}

/** The string a TabSeparated field holds (the inverse of `tabSeparatedField`). */
export function fromTabSeparatedField(field: string): string {
  if (!field.includes('\\')) return field;
  return field.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r' })[c] ?? c);
}

export class ClickHouseHttp {
  readonly client: ClickHouseClient;

  readonly url: string;
  /** `url` may carry `user:password@` and the database as its path (or a `?database=` parameter). */
  constructor(url: string, timeoutMs = 30_000) {
    this.url = url;
    const parsed = new URL(url);
    // `?database=` is the form CLICKHOUSE_URL has always accepted; the client reads the path.
    const database = parsed.searchParams.get('database');
    parsed.searchParams.delete('database');
    if (database) parsed.pathname = `/${database}`;
    this.client = createClient({
      url: parsed,
      request_timeout: timeoutMs,
      // ClickHouse servers quote 64-bit integers in JSON by default (chDB does not): counts and
      // byte sizes come back as numbers from both.
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
      // Failures are thrown to the caller, which logs them with its context.
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  /** Resolves when the server answers `/ping`; throws otherwise. */
  async ping(): Promise<void> {
    const result = await this.client.ping({ select: false, abort_signal: AbortSignal.timeout(3000) });
    if (!result.success) throw result.error;
  }

  /** Runs a statement that returns no rows (DDL, INSERT ... VALUES). */
  async exec(sql: string): Promise<void> {
    await this.client.command({ query: sql });
  }

  /** Runs a SELECT and returns its rows. */
  async query<Row = Record<string, unknown>>(sql: string): Promise<Row[]> {
    const result = await this.client.query({ query: sql, format: 'JSON' });
    return (await result.json<Row>()).data;
  }

  /** Inserts rows into a table (nothing is sent for no rows). */
  async insert(table: string, rows: readonly object[]): Promise<void> {
    if (rows.length === 0) return;
    await this.client.insert({ table, values: [...rows], format: 'JSONEachRow' });
  }

  /**
   * Inserts rows already encoded as they are, without parsing and re-encoding them: the delivery
   * spool's lines are TabSeparated in `columns`' order (JSONEachRow for spools older nodes wrote),
   * a backup's table is a TabSeparated file streamed from disk.
   */
  async insertEncoded(
    table: string,
    columns: readonly string[],
    format: 'TabSeparated' | 'JSONEachRow',
    data: Buffer | string | Readable,
  ): Promise<void> {
    if (!(data instanceof Readable) && data.length === 0) return;
    const { stream } = await this.client.exec({
      query: `INSERT INTO ${table} (${columns.join(', ')}) FORMAT ${format}`,
      values: data instanceof Readable ? data : Readable.from([data], { objectMode: false }),
    });
    for await (const chunk of stream) void chunk;
  }

  /** A SELECT's rows as the store encodes them (`... FORMAT TabSeparated`), streamed: a backup of a whole table. */
  async selectEncoded(sql: string): Promise<Readable> {
    const { stream } = await this.client.exec({ query: sql });
    return stream;
  }

  /** Closes the client's idle connections. */
  async close(): Promise<void> {
    await this.client.close();
  }
}
