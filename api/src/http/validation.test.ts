import { describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { IntegerEnum, StringEnum } from '../schemas/common.ts';
import { pickValidationCode, toFieldErrors, typeboxValidatorCompiler, type ValidationIssue } from './validation.ts';

function validator(schema: Parameters<typeof typeboxValidatorCompiler>[0]['schema'], httpPart: string) {
  return typeboxValidatorCompiler({ schema, httpPart, method: 'POST', url: '/' }) as (input: unknown) => {
    value?: unknown;
    error?: ValidationIssue[];
  };
}

const Body = Type.Object({
  name: Type.String({ minLength: 1 }),
  size: Type.Integer({ minimum: 1 }),
  quality: StringEnum(['standard', 'high'] as const),
  edge: Type.Optional(IntegerEnum([-1, 720] as const, { default: -1 })),
  public: Type.Optional(Type.Boolean()),
});

describe('request validation', () => {
  it('checks bodies as sent: no coercion of "1" or null, defaults applied', () => {
    const check = validator(Body, 'body');
    assert.deepEqual(check({ name: 'a', size: 1, quality: 'high' }).value, {
      name: 'a',
      size: 1,
      quality: 'high',
      edge: -1,
    });
    const result = check({ name: 'a', size: '1', quality: 'mega', public: null });
    const errors = toFieldErrors(result.error!, 'body');
    assert.deepEqual(errors, [
      { message: 'size must be an integer', location: 'body.size', value: '1' },
      { message: 'quality must be one of: standard, high', location: 'body.quality', value: 'mega' },
      { message: 'public must be true or false', location: 'body.public', value: null },
    ]);
  });

  it('reports missing fields as required, with value null', () => {
    const errors = toFieldErrors(validator(Body, 'body')({ size: 2, quality: 'high' }).error!, 'body');
    assert.deepEqual(errors, [{ message: 'name is required', location: 'body.name', value: null }]);
  });

  it('converts query strings and path parameters from text', () => {
    const Query = Type.Object({ page: Type.Integer({ minimum: 1, default: 1 }), on: Type.Optional(Type.Boolean()) });
    const check = validator(Query, 'querystring');
    assert.deepEqual(check({ page: '3', on: 'true' }).value, { page: 3, on: true });
    assert.deepEqual(check({}).value, { page: 1 });
    assert.deepEqual(toFieldErrors(check({ page: 'x' }).error!, 'querystring'), [
      { message: 'page must be an integer', location: 'query.page', value: 'x' },
    ]);
    // Only digits make an integer: a float that converting would truncate to 1 is refused.
    for (const text of ['1.175494351e-38', '2.5', '1e3']) {
      assert.deepEqual(toFieldErrors(check({ page: text }).error!, 'querystring'), [
        { message: 'page must be an integer', location: 'query.page', value: text },
      ]);
    }
  });

  it('lets a body with nothing required be left out', () => {
    const Optional = Type.Object({ reason: Type.Optional(StringEnum(['a', 'b'] as const)) });
    assert.deepEqual(validator(Optional, 'body')(undefined).value, {});
    assert.deepEqual(validator(Optional, 'body')(null).value, {});
    assert.equal(validator(Body, 'body')(undefined).error?.[0]?.message, 'the request must be a JSON object');
  });

  it('names the condition by the first error whose location has a named code', () => {
    const errors = [
      { message: '', location: 'body.allowPublicAccess', value: null },
      { message: '', location: 'body.maxEdgeLength', value: 5 },
      { message: '', location: 'body.videoQuality', value: 'x' },
    ];
    const codes = { 'body.videoQuality': 'invalid_quality_preset', 'body.maxEdgeLength': 'invalid_parameters' };
    assert.equal(pickValidationCode(errors, codes, 'invalid_request'), 'invalid_parameters');
    assert.equal(pickValidationCode(errors.slice(0, 1), codes, 'invalid_request'), 'invalid_request');
    assert.equal(
      pickValidationCode(
        [{ message: '', location: 'body.events[0]', value: 'x' }],
        { 'body.events': 'invalid_events' },
        'x',
      ),
      'invalid_events',
    );
  });
});
