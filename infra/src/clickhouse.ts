// ClickHouse over its HTTP interface: the analytics store. In the dev stack the URL points at the
// chDB-backed analytics process (`kino analytics`, infra/dev/analytics/chdb-http-server.ts); in
// production at a ClickHouse server. Both speak the same small subset used here: `/ping`, a query in
// the POST body with `FORMAT JSON`, and `INSERT ... FORMAT JSONEachRow` with the rows as the body.
//
// The SQL Kino sends must run on chDB 26 and on ClickHouse 18.16 (Debian's package) alike: no query
// parameters, no DateTime64, no LowCardinality, no TTL, no JSONCompactEachRow.

export class ClickHouseError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly sql: string,
  ) {
    super(message);
    this.name = 'ClickHouseError';
  }
}

/** Quotes a string as a ClickHouse string literal (for the few values Kino puts into SQL text). */
export function clickHouseString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export class ClickHouseHttp {
  private readonly base: URL;
  private readonly headers: Record<string, string> = {};

  /** `url` may carry `user:password@` and a `?database=` parameter. */
  constructor(
    readonly url: string,
    private readonly timeoutMs = 30_000,
  ) {
    const parsed = new URL(url);
    if (parsed.username) this.headers['X-ClickHouse-User'] = decodeURIComponent(parsed.username);
    if (parsed.password) this.headers['X-ClickHouse-Key'] = decodeURIComponent(parsed.password);
    parsed.username = '';
    parsed.password = '';
    this.base = parsed;
  }

  async ping(): Promise<void> {
    const response = await fetch(new URL('/ping', this.base), { signal: AbortSignal.timeout(3000) });
    if (!response.ok) throw new Error(`ClickHouse ping answered ${response.status}`);
  }

  /** Runs a statement that returns no rows (DDL, INSERT ... VALUES). */
  async exec(sql: string): Promise<void> {
    await this.post(sql, undefined);
  }

  /**
   * Runs a SELECT and returns its rows. Numbers come back as numbers: ClickHouse servers quote
   * 64-bit integers in JSON unless told otherwise, chDB does not; both are normalised here.
   */
  async query<Row = Record<string, unknown>>(sql: string): Promise<Row[]> {
    const text = await this.post(`${sql.trim().replace(/;$/, '')}\nFORMAT JSON`, undefined);
    const parsed = JSON.parse(text) as { meta: { name: string; type: string }[]; data: Record<string, unknown>[] };
    const numeric = parsed.meta
      .filter((column) => /^(Nullable\()?(U?Int(8|16|32|64)|Float(32|64))\)?$/.test(column.type))
      .map((column) => column.name);
    for (const row of parsed.data) {
      for (const name of numeric) if (typeof row[name] === 'string') row[name] = Number(row[name]);
    }
    return parsed.data as Row[];
  }

  /** Inserts rows (objects, or ready-made JSONEachRow text) into a table. */
  async insert(table: string, rows: readonly object[] | string): Promise<void> {
    const body = typeof rows === 'string' ? rows : rows.map((row) => JSON.stringify(row)).join('\n');
    if (!body.trim()) return;
    await this.post(body, `INSERT INTO ${table} FORMAT JSONEachRow`);
  }

  /** POSTs `body`; with `query` set, the query goes in the URL and the body is its data. */
  private async post(body: string, query: string | undefined): Promise<string> {
    const url = new URL(this.base);
    if (query) url.searchParams.set('query', query);
    // ClickHouse servers quote 64-bit integers in JSON by default; chDB's bridge ignores settings.
    url.searchParams.set('output_format_json_quote_64bit_integers', '0');
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { ...this.headers, 'Content-Type': 'text/plain; charset=utf-8' },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new ClickHouseError(
        `ClickHouse answered ${response.status}: ${text.trim().slice(0, 500)}`,
        response.status,
        (query ?? body).slice(0, 500),
      );
    }
    return text;
  }
}
