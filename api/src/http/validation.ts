// Request validation with TypeBox's compiler. Bodies are checked as sent (no coercion: "1" is not a
// number, null is not false); query strings and path parameters are converted from text first.
// Defaults from the schemas are applied. Errors keep where they came from and the offending value,
// so the error handler can list them as the spec's `errors[]`.
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { closestName } from '@kino/infra';
import { DATE_PATTERN, IDEMPOTENCY_KEY_PATTERN, TEXT_PATTERN, WEBHOOK_URL_PATTERN } from '../schemas/common.ts';
import type { FieldError } from './errors.ts';

/** What a failed check reports to Fastify: it lands in `error.validation`. */
export interface ValidationIssue {
  instancePath: string;
  message: string;
  params: { value: unknown };
}

const patternMessages: Record<string, string> = {
  [DATE_PATTERN]: 'must be a date written YYYY-MM-DD',
  [IDEMPOTENCY_KEY_PATTERN]: 'must be visible ASCII characters (no spaces)',
  [WEBHOOK_URL_PATTERN]: 'must be an absolute http(s) URL without credentials',
  [TEXT_PATTERN]: 'must not contain NUL characters',
};

const formatMessages: Record<string, string> = {
  date: 'must be a date that exists, written YYYY-MM-DD',
  email: 'must be an email address',
};

function describeExpectation(error: ValueError): string {
  const schema = error.schema as Record<string, unknown>;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.Kind:
      return Array.isArray(schema.enum) ? `must be one of: ${schema.enum.join(', ')}` : 'has an unsupported value';
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${String(schema.minimum)}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${String(schema.maximum)}`;
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1
        ? 'must not be empty'
        : `must be at least ${String(schema.minLength)} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${String(schema.maxLength)} characters long`;
    case ValueErrorType.StringPattern:
      return patternMessages[String(schema.pattern)] ?? `must match ${String(schema.pattern)}`;
    case ValueErrorType.StringFormat:
      return formatMessages[String(schema.format)] ?? `must be a ${String(schema.format)}`;
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Object:
      return 'must be a JSON object';
    case ValueErrorType.Array:
      return 'must be an array';
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${String(schema.minItems)} item(s)`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${String(schema.maxItems)} items`;
    case ValueErrorType.ArrayUniqueItems:
      return 'must not repeat an item';
    case ValueErrorType.Union:
      return 'is not an accepted value';
    case ValueErrorType.ObjectAdditionalProperties:
      return unknownFieldExpectation(error);
    default:
      return error.message;
  }
}

/**
 * A field the object's schema does not declare (every request object is closed:
 * plugins/strict-requests.ts), with the known field of the same object a typo most likely meant.
 */
function unknownFieldExpectation(error: ValueError): string {
  const segments = pathSegments(error.path);
  const sent = segments.at(-1) ?? '';
  const known = Object.keys((error.schema as { properties?: Record<string, unknown> }).properties ?? {});
  const meant = closestName(sent, known);
  if (!meant) return 'is not a field of this request';
  const parent = fieldName(segments.slice(0, -1));
  return `is not a field of this request; did you mean \`${parent ? `${parent}.${meant}` : meant}\`?`;
}

/**
 * A JSON Pointer's segments, unescaped (`~1` is `/`, `~0` is `~`): `/a~1b/0` → `['a/b', '0']`, the
 * whole document (`''`) → `[]`. An empty segment is kept: `{"": 1}` sends a field named ''.
 */
function pathSegments(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .replace(/^\//, '')
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `['events', '0']` (from `/events/0`) → `events[0]`. */
function fieldName(segments: string[]): string {
  return segments
    .filter(Boolean)
    .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');
}

/** One issue per field: the first TypeBox reports, but "is required" wins for a missing field. */
function toIssues(errors: ValueError[]): ValidationIssue[] {
  const byPath = new Map<string, ValueError>();
  for (const error of errors) {
    const seen = byPath.get(error.path);
    if (!seen || (error.type === ValueErrorType.ObjectRequiredProperty && seen.type !== error.type))
      byPath.set(error.path, error);
  }
  return [...byPath.values()].map((error) => {
    const field = fieldName(pathSegments(error.path));
    const missing = error.value === undefined && error.type !== ValueErrorType.ObjectAdditionalProperties;
    const expectation = missing && field ? 'is required' : describeExpectation(error);
    return {
      instancePath: error.path,
      message: field ? `${field} ${expectation}` : `the request ${expectation}`,
      params: { value: missing ? null : error.value },
    };
  });
}

/**
 * Whether a length error is TypeBox's alone: it measures strings in UTF-16 units, JSON Schema (and
 * so the OpenAPI document and its clients) in characters, so "𝓐" is one character but two units.
 */
function isUtf16LengthArtefact(error: ValueError): boolean {
  if (error.type !== ValueErrorType.StringMaxLength || typeof error.value !== 'string') return false;
  return [...error.value].length <= Number((error.schema as { maxLength?: number }).maxLength);
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
/** An integer parameter takes digits only: Convert would read `1.5e-38` as 1. */
const INTEGER_TEXT = /^-?\d+$/;

/**
 * Query and path text converted to the schema's types. TypeBox's Convert also reads `true` as 1 for
 * a number; only numerals become numbers here, anything else stays text and fails the check.
 */
function convertText(schema: TSchema, input: unknown): unknown {
  // A copy: Convert may change what it is given.
  const raw = typeof input === 'object' && input !== null ? { ...(input as Record<string, unknown>) } : {};
  const converted = Value.Convert(schema, input);
  const properties = (schema as { properties?: Record<string, { type?: string }> }).properties;
  if (!properties || typeof converted !== 'object' || converted === null) return converted;
  const result = { ...(converted as Record<string, unknown>) };
  for (const [name, property] of Object.entries(properties)) {
    const text = raw[name];
    if (typeof text !== 'string') continue;
    if (property.type === 'integer' && !INTEGER_TEXT.test(text)) result[name] = text;
    else if (property.type === 'number' && !NUMBER_TEXT.test(text)) result[name] = text;
  }
  return result;
}

/** Whether a route's body may be left out: it has no schema, or its schema requires no field. */
export function isOptionalBody(schema: unknown): boolean {
  return !(schema as { required?: string[] } | undefined)?.required?.length;
}

/**
 * Whether a request may leave its body out and be taken: the validator reads a missing body as {}
 * when the schema requires no field, and {} (with its defaults) must then pass the rest of it (a
 * PATCH asks for at least one field). The OpenAPI document's `requestBody.required` (app.ts).
 */
export function acceptsNoBody(schema: unknown): boolean {
  if (!schema || !isOptionalBody(schema)) return false;
  return Value.Check(schema as TSchema, Value.Default(schema as TSchema, {}));
}

export const typeboxValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = TypeCompiler.Compile(schema);
  const convert = httpPart !== 'body';
  return (input: unknown) => {
    // A body whose schema requires nothing may be left out (e.g. DELETE with an optional reason).
    const omittedOptionalBody = !convert && (input === undefined || input === null) && isOptionalBody(schema);
    let value = convert ? convertText(schema, input) : omittedOptionalBody ? {} : input;
    if (value !== undefined && value !== null) value = Value.Default(schema, value);
    if (check.Check(value)) return { value };
    const errors = [...check.Errors(value)].flatMap(unionLeaves);
    // An Intersect or Union reports its members' failures again as its own: judge the leaves.
    const real = errors.filter((error) => !isUtf16LengthArtefact(error));
    const leaves = real.filter(
      (error) => error.type !== ValueErrorType.Intersect && error.type !== ValueErrorType.Union,
    );
    if (leaves.length === 0 && errors.some(isUtf16LengthArtefact)) return { value };
    return { error: toIssues(real) as unknown as Error };
  };
};

const locationPrefix: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'params',
  headers: 'headers',
};

/**
 * A union's failure as the failures inside its value, where a member got that far: `{…} or null`
 * given an object with a number out of range names that number (`body.watermark.widthPercent`), not
 * the union. A value no member could look into (a string for an object) stays the union's failure.
 */
function unionLeaves(error: ValueError): ValueError[] {
  if (error.type !== ValueErrorType.Union) return [error];
  const inner = error.errors.flatMap((member) => [...member]).filter((e) => e.path.startsWith(`${error.path}/`));
  return inner.length > 0 ? inner.flatMap(unionLeaves) : [error];
}

/** Fastify's validation result → the spec's `errors[]` entries. */
export function toFieldErrors(issues: ValidationIssue[], context: string | undefined): FieldError[] {
  const prefix = locationPrefix[context ?? 'body'] ?? 'body';
  return issues.map((issue) => {
    const field = fieldName(pathSegments(issue.instancePath));
    return {
      message: issue.message,
      location: field ? `${prefix}.${field}` : prefix,
      value: issue.params?.value ?? null,
    };
  });
}

/**
 * The named condition for a set of field errors: routes map locations to codes
 * (`body.fileSize` → `invalid_file_size`); the first error with a named code decides.
 */
export function pickValidationCode(
  errors: FieldError[],
  codes: Record<string, string> | undefined,
  fallback: string,
): string {
  if (!codes) return fallback;
  for (const error of errors) {
    for (const [location, code] of Object.entries(codes)) {
      if (
        error.location === location ||
        error.location.startsWith(`${location}.`) ||
        error.location.startsWith(`${location}[`)
      ) {
        return code;
      }
    }
  }
  return fallback;
}
