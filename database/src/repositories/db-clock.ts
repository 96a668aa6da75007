// Clock arithmetic done by the database, so that process clocks never matter.
import { sql, type RawBuilder } from 'kysely';

/** `now() - ms`, computed by the database. */
export function ago(ms: number): RawBuilder<Date> {
  return sql<Date>`now() - (${Math.max(0, Math.round(ms))}::double precision * interval '1 millisecond')`;
}
