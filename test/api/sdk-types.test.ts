// The SDK's hand-written types against the OpenAPI document the API serves: every documented
// operation is a call of the SDK, and at every level of each request body and answer the SDK's type
// has exactly the fields the document has (names, and whether each is optional). A field added to a
// route and not to the SDK, or the reverse, fails here. The SDK's types are read with the
// TypeScript compiler, as a user's editor reads them.
import { afterAll, beforeAll, describe, it } from 'vitest';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '@kino/infra';
import { startTestServices, type TestServices } from '@kino/test/support/services';
import { startApiHarness, type ApiHarness, type Json } from './harness.ts';

let services: TestServices;
let api: ApiHarness;
let doc: Json;

beforeAll(async () => {
  services = await startTestServices({ postgres: true });
  api = await startApiHarness(services);
  doc = (await api.app.inject({ method: 'GET', url: '/v1/api/openapi.json' })).json();
});

afterAll(async () => {
  await api?.close();
  await services?.stop();
});

/**
 * Each operation and the SDK types of its request body, of the query parameters its call takes as
 * one object (`query`; calls that take them as arguments send the documented names), and of the
 * part of its answer's `body` the SDK returns (`at`: a property path, `[]` for an array's items).
 * null: a body the SDK does not type.
 */
const operations: Record<string, { request?: string; query?: string; response: { at?: string; type: string } | null }> =
  {
    'GET /health': { response: { type: 'Health' } },
    'GET /{orgID}/environments': { response: { at: 'environments[]', type: 'Environment' } },
    'PATCH /{orgID}/environments/{envID}': { request: 'UpdateEnvironmentParams', response: { type: 'Environment' } },
    'POST /{orgID}/environments/{envID}/images': { response: { type: 'Image' } },
    'POST /{orgID}/environments/{envID}/videos/upload-url': {
      request: 'CreateUploadUrlParams',
      response: { type: 'UploadTicket' },
    },
    'POST /{orgID}/environments/{envID}/videos/process': {
      request: 'ProcessVideoParams',
      response: { type: 'ProcessVideoResult' },
    },
    'POST /{orgID}/environments/{envID}/videos/ingest': {
      request: 'IngestVideoParams',
      response: { type: 'ProcessVideoResult' },
    },
    'GET /{orgID}/environments/{envID}/videos': {
      query: 'ListVideosParams',
      response: { at: 'videos[]', type: 'Video' },
    },
    'GET /{orgID}/videos': { query: 'ListVideosParams', response: { at: 'videos[]', type: 'OrganizationVideo' } },
    'GET /{orgID}/videos/{publicID}/details': { response: { type: 'VideoDetails' } },
    'PATCH /{orgID}/videos/{videoID}': { request: 'UpdateVideoParams', response: { type: 'VideoDetails' } },
    'DELETE /{orgID}/videos/{videoID}': { response: { type: 'DeleteVideoResult' } },
    'POST /{orgID}/videos/{publicID}/retry': { response: { type: 'RetryVideoResult' } },
    'POST /{orgID}/videos/{publicID}/clips': { request: 'CreateClipParams', response: { type: 'ProcessVideoResult' } },
    'GET /{orgID}/videos/{publicID}/signed-url': { query: 'SignedUrlParams', response: { type: 'SignedPlaybackUrl' } },
    'POST /{orgID}/videos/{publicID}/share': { request: 'CreateShareLinkParams', response: { type: 'ShareLink' } },
    'GET /{orgID}/videos/{publicID}/share': { response: { at: 'shareLinks[]', type: 'ShareLink' } },
    'DELETE /{orgID}/videos/{publicID}/share/{linkID}': { response: { type: 'RevokedShareLink' } },
    'POST /{orgID}/environments/{envID}/live-streams': {
      request: 'CreateLiveStreamParams',
      response: { type: 'LiveStream' },
    },
    'GET /{orgID}/environments/{envID}/live-streams': {
      query: 'ListLiveStreamsParams',
      response: { at: 'liveStreams[]', type: 'LiveStream' },
    },
    'GET /{orgID}/live-streams/{liveStreamId}': { response: { type: 'LiveStream' } },
    'PATCH /{orgID}/live-streams/{liveStreamId}': {
      request: 'UpdateLiveStreamParams',
      response: { type: 'LiveStream' },
    },
    'DELETE /{orgID}/live-streams/{liveStreamId}': { response: { type: 'DeletedLiveStream' } },
    'POST /{orgID}/live-streams/{liveStreamId}/reset-stream-key': { response: { type: 'LiveStream' } },
    'POST /{orgID}/live-streams/{liveStreamId}/disable': { response: { type: 'LiveStream' } },
    'POST /{orgID}/live-streams/{liveStreamId}/enable': { response: { type: 'LiveStream' } },
    'POST /{orgID}/live-streams/{liveStreamId}/playback-url': {
      request: 'LiveStreamPlaybackUrlParams',
      response: { type: 'SignedPlaybackUrl' },
    },
    'POST /{orgID}/videos/{publicID}/thumbnails': { request: 'CreateThumbnailParams', response: { type: 'Thumbnail' } },
    'POST /{orgID}/videos/{publicID}/captions': { request: 'AddCaptionParams', response: { type: 'CaptionTrack' } },
    'GET /{orgID}/videos/{publicID}/captions': { response: { at: 'captions[]', type: 'CaptionTrack' } },
    'DELETE /{orgID}/videos/{publicID}/captions/{language}': { response: { type: 'DeletedCaptionTrack' } },
    'POST /{orgID}/videos/{publicID}/captions/generate': {
      request: 'GenerateCaptionsParams',
      response: { type: 'GeneratingCaptionTrack' },
    },
    'GET /{orgID}/videos/{publicID}/transcript': { query: 'TranscriptParams', response: { type: 'Transcript' } },
    'POST /{orgID}/videos/{publicID}/audio-tracks': {
      request: 'AddAudioTrackParams',
      response: { type: 'AudioTrack' },
    },
    'GET /{orgID}/videos/{publicID}/audio-tracks': { response: { at: 'audioTracks[]', type: 'AudioTrack' } },
    'DELETE /{orgID}/videos/{publicID}/audio-tracks/{language}': { response: { type: 'DeletedAudioTrack' } },
    'POST /{orgID}/environments/{envID}/webhooks': {
      request: 'CreateWebhookParams',
      response: { type: 'CreatedWebhook' },
    },
    'GET /{orgID}/environments/{envID}/webhooks': { response: { at: 'webhooks[]', type: 'Webhook' } },
    'DELETE /{orgID}/environments/{envID}/webhooks/{webhookID}': { response: null },
    'GET /{orgID}/environments/{envID}/webhooks/{webhookID}/deliveries': {
      response: { at: 'deliveries[]', type: 'WebhookDelivery' },
    },
    // Neither takes a body.
    'POST /{orgID}/environments/{envID}/webhooks/{webhookID}/deliveries/{deliveryID}/redeliver': {
      response: { type: 'WebhookDelivery' },
    },
    'POST /{orgID}/environments/{envID}/webhooks/{webhookID}/test': { response: { type: 'WebhookDelivery' } },
    'POST /{orgID}/environments/{envID}/uploads/multipart': {
      request: 'CreateMultipartUploadParams',
      response: { type: 'MultipartUpload' },
    },
    // The SDK takes the part numbers as an argument, not as a params object.
    'POST /{orgID}/environments/{envID}/uploads/multipart/{uploadId}/parts': { response: { type: 'PartUrls' } },
    'GET /{orgID}/environments/{envID}/uploads/multipart/{uploadId}/parts': {
      response: { at: 'parts[]', type: 'UploadedPart' },
    },
    'POST /{orgID}/environments/{envID}/uploads/multipart/{uploadId}/complete': {
      response: { type: 'CompletedMultipartUpload' },
    },
    'DELETE /{orgID}/environments/{envID}/uploads/multipart/{uploadId}': {
      response: { type: 'AbortedMultipartUpload' },
    },
    ...Object.fromEntries(
      ['/{orgID}', '/{orgID}/environments/{envID}'].flatMap((scope) => [
        [`GET ${scope}/analytics/usage`, { response: { at: 'usage[]', type: 'UsageRecord' } }],
        [`GET ${scope}/analytics/daily`, { response: { at: 'dailyUsage[]', type: 'DailyRecord' } }],
        [`GET ${scope}/analytics/storage`, { response: { at: 'storage', type: 'StorageRecord' } }],
        [
          `GET ${scope}/analytics/resolution-distribution`,
          { response: { at: 'distribution[]', type: 'DistributionEntry' } },
        ],
        [`GET ${scope}/analytics/experience`, { response: { at: 'experience[]', type: 'ExperienceRecord' } }],
      ]),
    ),
    'GET /{orgID}/videos/{publicID}/analytics/resolution': { response: { type: 'VideoResolutions' } },
    'GET /{orgID}/videos/{publicID}/analytics/experience': {
      response: { at: 'experience[]', type: 'ExperienceRecord' },
    },
    // The playback keys: for players' and servers' JWT libraries, not a call of the SDK.
    'GET /.well-known/jwks.json': { response: null },
  };

/** The SDK's exported types, read through its entry as a user's compiler does. */
function sdkTypes() {
  const entry = join(repoRoot, 'sdk', 'src', 'index.ts');
  const program = ts.createProgram([entry], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    allowImportingTsExtensions: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  const exported = new Map(checker.getExportsOfModule(module).map((symbol) => [symbol.name, symbol]));
  const named = (name: string): ts.Type => {
    const symbol = exported.get(name);
    assert.ok(symbol, `the SDK exports a type ${name}`);
    return checker.getDeclaredTypeOfSymbol(
      symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
    );
  };
  return { checker, named };
}

/** Follows `a.b[]` into a JSON schema. */
function schemaAt(schema: Json, at: string | undefined): Json {
  for (const step of (at ?? '').split('.').filter(Boolean)) {
    const [name, items] = [step.replace('[]', ''), step.endsWith('[]')];
    schema = schema.properties?.[name];
    assert.ok(schema, `the answer has ${name}`);
    if (items) schema = schema.items;
  }
  return schema;
}

/** The object schemas of a schema: itself, an array's items, a nullable's or a union's objects. */
function objectSchemas(schema: Json): Json[] {
  if (!schema) return [];
  if (schema.properties) return [schema];
  if (schema.items) return objectSchemas(schema.items);
  for (const key of ['anyOf', 'oneOf', 'allOf']) if (schema[key]) return schema[key].flatMap(objectSchemas);
  return [];
}

/** Differences between a schema and a type, field by field, at every level, as `path: what`. */
function compare(checker: ts.TypeChecker, schema: Json, type: ts.Type, path: string, out: string[]): void {
  const objects = objectSchemas(schema);
  const tsObjects = objectTypes(checker, type);
  if (objects.length === 0 || tsObjects.length === 0) return;
  const object = objects[0]!;
  const tsObject = tsObjects[0]!;
  const required = new Set<string>(object.required ?? []);
  const documented = Object.keys(object.properties ?? {});
  const typed = new Map(checker.getPropertiesOfType(tsObject).map((symbol) => [symbol.name, symbol]));
  for (const name of documented) {
    const symbol = typed.get(name);
    if (!symbol) {
      out.push(`${path}${name}: in the API, not in the SDK`);
      continue;
    }
    const optional = (symbol.flags & ts.SymbolFlags.Optional) !== 0;
    if (optional === required.has(name))
      out.push(
        `${path}${name}: ${required.has(name) ? 'required' : 'optional'} in the API, ${optional ? 'optional' : 'required'} in the SDK`,
      );
    compare(checker, object.properties[name], checker.getTypeOfSymbol(symbol), `${path}${name}.`, out);
  }
  for (const name of typed.keys())
    if (!documented.includes(name)) out.push(`${path}${name}: in the SDK, not in the API`);
}

/** The object types in a type: itself, an array's elements, a union's members (null and undefined dropped). */
function objectTypes(checker: ts.TypeChecker, type: ts.Type): ts.Type[] {
  if (type.isUnion()) return type.types.flatMap((member) => objectTypes(checker, member));
  if (checker.isArrayType(type)) return objectTypes(checker, checker.getTypeArguments(type as ts.TypeReference)[0]!);
  if (
    type.flags & ts.TypeFlags.Object &&
    checker.getPropertiesOfType(type).length > 0 &&
    !(type.getCallSignatures().length > 0)
  )
    return [type];
  return [];
}

describe('the SDK follows the OpenAPI document', () => {
  it('has a call for every documented operation', () => {
    const documented = Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const missing = documented.filter((operation) => !(operation in operations));
    assert.deepEqual(missing, [], 'documented operations the SDK table does not name');
    const gone = Object.keys(operations).filter((operation) => !documented.includes(operation));
    assert.deepEqual(gone, [], 'operations the table names that the API no longer documents');
  });

  it('has, at every level of each request body and answer, exactly the fields the document has', () => {
    const { checker, named } = sdkTypes();
    const problems: string[] = [];
    for (const [operation, { request, response }] of Object.entries(operations)) {
      const [method, path] = operation.split(' ') as [string, string];
      const described = doc.paths[path][method.toLowerCase()];
      if (request)
        compare(
          checker,
          described.requestBody.content['application/json'].schema,
          named(request),
          `${operation} request: `,
          problems,
        );
      if (response) {
        // The success answer: 200, or 202 for work accepted to run later (an added audio track).
        const success = described.responses['200'] ?? described.responses['202'];
        const body = success.content['application/json'].schema.properties.body;
        compare(checker, schemaAt(body, response.at), named(response.type), `${operation} answer: `, problems);
      }
    }
    assert.deepEqual(problems, []);
  });

  // The API refuses a query parameter it does not declare (issue 60): a field of the SDK's type the
  // document does not list would be a 400 at every call that sets it.
  it('has, for each query its calls take as one object, exactly the query parameters the document has', () => {
    const { checker, named } = sdkTypes();
    const problems: string[] = [];
    for (const [operation, { query }] of Object.entries(operations)) {
      if (!query) continue;
      const [method, path] = operation.split(' ') as [string, string];
      const parameters = (doc.paths[path][method.toLowerCase()].parameters as Json[]).filter((p) => p.in === 'query');
      const documented = new Map(parameters.map((p) => [p.name as string, Boolean(p.required)]));
      const typed = new Map(
        checker
          .getPropertiesOfType(named(query))
          .map((symbol) => [symbol.name, (symbol.flags & ts.SymbolFlags.Optional) === 0]),
      );
      for (const [name, required] of documented) {
        if (!typed.has(name)) problems.push(`${operation} query: ${name}: in the API, not in the SDK`);
        else if (typed.get(name) !== required)
          problems.push(
            `${operation} query: ${name}: ${required ? 'required' : 'optional'} in the API, not in the SDK`,
          );
      }
      for (const name of typed.keys())
        if (!documented.has(name)) problems.push(`${operation} query: ${name}: in the SDK, not in the API`);
    }
    assert.deepEqual(problems, []);
  });
});
