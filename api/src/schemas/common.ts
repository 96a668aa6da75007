// Schema helpers shared by the routes. TypeBox schemas are plain JSON Schema: the same objects
// validate requests (http/validation.ts), serialize responses and feed the OpenAPI document.
import { FormatRegistry, Kind, Type, TypeRegistry, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

// A closed set of values, written `{type, enum}` in the OpenAPI document (a union of literals would
// become an unreadable anyOf there).
TypeRegistry.Set<{ enum: unknown[] }>('KinoEnum', (schema, value) => schema.enum.includes(value));

export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: 'KinoEnum', type: 'string', enum: [...values] });
}

/**
 * A closed set of values or null, written `{type, enum (null among them), nullable}` as OpenAPI 3.0.3
 * asks: a union with `Type.Null()` becomes `nullable` on an enum without null, which validators
 * that read the document refuse null against.
 */
export function NullableStringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number] | null> {
  return Type.Unsafe<T[number] | null>({
    ...options,
    [Kind]: 'KinoEnum',
    type: 'string',
    nullable: true,
    enum: [...values, null],
  });
}

export function IntegerEnum<const T extends readonly number[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, [Kind]: 'KinoEnum', type: 'integer', enum: [...values] });
}

/** A calendar date, YYYY-MM-DD. */
export const DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/** A calendar date (YYYY-MM-DD, already pattern-checked) as the UTC midnight it starts, if it exists. */
export function parseCalendarDate(text: string): Date | undefined {
  const date = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text ? undefined : date;
}

// `format: date` (RFC 3339 full-date) says in the OpenAPI document that a day must exist, which the
// pattern alone cannot: clients and fuzzers then send real dates. Handlers read such a parameter
// with parseCalendarDate, which cannot fail on it any more.
FormatRegistry.Set('date', (text) => parseCalendarDate(text) !== undefined);

/** An email address: something@domain.tld, no spaces (a recorded contact, never mailed by Kino). */
FormatRegistry.Set('email', (text) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(text));

/** A calendar date parameter: YYYY-MM-DD, a day that exists. */
export function CalendarDate(description: string) {
  return Type.String({ pattern: DATE_PATTERN, format: 'date', description });
}

/** Text that PostgreSQL can store: anything but NUL, which a `text` column refuses. */
export const TEXT_PATTERN = '^[^\\u0000]*$';

/** A string stored as text (names, searches). */
export function Text(options: { minLength?: number; maxLength: number; description?: string }) {
  return Type.String({ ...options, pattern: TEXT_PATTERN });
}

/** The ids in paths (`org_…`, `env_…`, `vid_…`): Kino's are 20 characters; longer is never one. NUL is refused as in Text. */
export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: TEXT_PATTERN });

// What a webhook URL may be (routes/webhooks.ts checks it parses too), written as a pattern so the OpenAPI document says it: http(s), a
// dotted IPv4 address or a host name whose last label starts with a letter (so it never reads as a
// number), an optional port 1–65535, an optional path; no credentials, no spaces.
const octet = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const port = '(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})';
export const WEBHOOK_URL_PATTERN = `^https?://((${octet}\\.){3}${octet}|([A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*)(:${port})?(/[!-~]*)?$`;

/** An `Idempotency-Key`: visible ASCII characters (its length is bounded apart, 1–255). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]+$';

/**
 * Every successful response is `{ body: ... }` (spec, Conventions). The example, typed by the body's
 * schema, is the response's example in the OpenAPI document (and its reference page).
 */
export function Envelope<T extends TSchema>(body: T, example?: Static<T>) {
  return Type.Object({ body }, example === undefined ? {} : { examples: [{ body: example }] });
}

/**
 * The schema with examples, typed by it: the OpenAPI document shows the first on the request body
 * (or parameter), and test/api/http.test.ts checks every example fits its schema.
 */
export function withExamples<T extends TSchema>(schema: T, ...examples: [Static<T>, ...Static<T>[]]): T {
  return { ...schema, examples };
}

export const FieldErrorSchema = Type.Object({
  message: Type.String(),
  location: Type.String({ description: 'body.<field>, query.<field> or params.<field>' }),
  value: Type.Unknown({ description: 'The offending value; null when missing.' }),
});

/** The spec's error envelope, plus `code` naming the condition. */
export const ErrorSchema = Type.Object(
  {
    title: Type.String({ description: 'The HTTP status text.' }),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'The named condition, e.g. invalid_page_size, video_not_found.' }),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { title: 'Error' },
);

/** The error responses every authenticated route may give, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, typeof ErrorSchema> {
  return Object.fromEntries([401, 403, 429, ...statuses].map((status) => [status, ErrorSchema]));
}

export const OrgParams = Type.Object({ orgID: Id });
export const EnvParams = Type.Object({ orgID: Id, envID: Id });
