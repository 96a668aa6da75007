// Reading a process's `GET /metrics` in tests: the Prometheus text format (version 0.0.4) parsed
// into samples, then picked by name and labels. A parser of its own because the npm one
// (parse-prometheus-text-format) folds every labelled histogram into one sample, dropping its labels.
import assert from 'node:assert/strict';
import { waitFor } from '@kino/dev';

export interface Sample {
  /** The sample's own name: `x_total`, or a histogram's `x_bucket`, `x_sum`, `x_count`. */
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One sample line: `name{label="value",...} value [timestamp]`; label values unescaped (\\, \", \n). */
function parseSampleLine(line: string): Sample {
  const nameEnd = line.search(/[{\s]/);
  assert.ok(nameEnd > 0, `not a sample line: ${line}`);
  const name = line.slice(0, nameEnd);
  const labels: Record<string, string> = {};
  let at = nameEnd;
  if (line[at] === '{') {
    at++;
    while (line[at] !== '}') {
      const eq = line.indexOf('=', at);
      const label = line.slice(at, eq).trim();
      assert.equal(line[eq + 1], '"', `a label value is quoted: ${line}`);
      let value = '';
      at = eq + 2;
      while (line[at] !== '"') {
        assert.ok(at < line.length, `unterminated label value: ${line}`);
        if (line[at] === '\\') {
          const escaped = line[at + 1];
          value += escaped === 'n' ? '\n' : escaped;
          at += 2;
        } else {
          value += line[at++];
        }
      }
      labels[label] = value;
      at++;
      if (line[at] === ',') at++;
    }
    at++;
  }
  const [valueText] = line.slice(at).trim().split(/\s+/);
  const value = valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : Number(valueText);
  // prom-client writes NaN as `Nan` (an event-loop lag with no sample yet); Prometheus reads it in any case.
  assert.ok(!Number.isNaN(value) || valueText?.toLowerCase() === 'nan', `not a sample value: ${line}`);
  return { name, labels, value };
}

export class Scrape {
  /** Metric families by name, with their TYPE. */
  readonly types = new Map<string, string>();
  readonly samples: Sample[] = [];

  readonly text: string;
  constructor(text: string) {
    this.text = text;
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      if (line.startsWith('#')) {
        const type = /^# TYPE (\S+) (\S+)$/.exec(line);
        if (type) this.types.set(type[1]!, type[2]!);
        continue;
      }
      this.samples.push(parseSampleLine(line));
    }
  }

  has(family: string): boolean {
    return this.types.has(family);
  }

  /**
   * The samples of a family whose labels include `labels`: a counter's or gauge's own samples, a
   * histogram's `_count` samples (how many observations).
   */
  matching(family: string, labels: Record<string, string> = {}): Sample[] {
    const type = this.types.get(family);
    assert.ok(
      type,
      `no metric ${family} in the scrape (Kino's: ${[...this.types.keys()].filter((n) => n.startsWith('kino_')).join(', ')})`,
    );
    const name = type === 'histogram' ? `${family}_count` : family;
    return this.samples.filter(
      (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  }

  /** The sum of the matching samples (a histogram: of their observation counts); 0 when none match. */
  value(family: string, labels: Record<string, string> = {}): number {
    return this.matching(family, labels).reduce((sum, sample) => sum + sample.value, 0);
  }

  /** Every value a label takes across a family's samples. */
  labelValues(family: string, label: string): string[] {
    return [
      ...new Set(
        this.matching(family)
          .map((sample) => sample.labels[label])
          .filter((value): value is string => value !== undefined),
      ),
    ];
  }
}

/** Scrapes `url` (…/metrics); fails unless it answers 200 with the Prometheus text format. */
export async function scrape(url: string, token?: string): Promise<Scrape> {
  const response = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await response.text();
  assert.equal(response.status, 200, `${url} answered ${response.status}: ${text.slice(0, 300)}`);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return new Scrape(text);
}

/**
 * Scrapes until `check` passes (for what is recorded after the answer the test waited for: a row
 * shipped, a slot given back, a heartbeat); a timeout names the last failed check.
 */
export function scrapeUntil(url: string, check: (scraped: Scrape) => void, token?: string): Promise<Scrape> {
  return waitFor(
    `${url} to show the expected values`,
    async () => {
      const scraped = await scrape(url, token);
      check(scraped);
      return scraped;
    },
    { timeoutMs: 30_000, intervalMs: 200 },
  );
}
