// ClickHouse over its HTTP interface: the analytics store. In the dev stack the URL points at the
// chDB-backed analytics process; in production at a ClickHouse server.
export class ClickHouseHttp {
  constructor(readonly url: string) {}

  async ping(): Promise<void> {
    const response = await fetch(new URL('/ping', this.url), { signal: AbortSignal.timeout(3000) });
    if (!response.ok) throw new Error(`ClickHouse ping answered ${response.status}`);
  }
}
