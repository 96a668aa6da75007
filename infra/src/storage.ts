// Object storage: one S3 client factory and presigned URLs. Where objects live (the bucket layout,
// `objectKeys`) is the shared contract's: @kino/proto/contract.
// Nodes never get these credentials: they get presigned URLs scoped to one object and a short time.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetBucketCorsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutBucketCorsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CORSRule,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import type { PublicStorageConfig, StorageConfig } from './config.ts';

/** A part of a multipart upload that storage holds. */
export interface StoredPart {
  partNumber: number;
  size: number;
  etag: string;
}

/** The multipart upload is not there (never was, completed, or aborted). */
export class NoSuchUploadError extends Error {
  override name = 'NoSuchUploadError';
}

/**
 * Storage did not answer, or answered that it cannot serve now (5xx): nothing was read or changed,
 * and the same call may succeed shortly. Callers map it to 503 (a restarting S3 is an outage, not
 * a fault of ours).
 */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError';
  constructor(cause: unknown) {
    super('object storage is unavailable', { cause });
  }
}

/** No HTTP answer at all (refused, reset, timed out) or a 5xx after the SDK's own retries. */
function isUnavailable(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === undefined || status >= 500;
}

function isNoSuchUpload(error: unknown): boolean {
  const failure = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return (
    failure.name === 'NoSuchUpload' || failure.Code === 'NoSuchUpload' || failure.$metadata?.httpStatusCode === 404
  );
}

/**
 * The headers a presigned PUT signs beside host. The presigner leaves Content-Type unsigned unless
 * named here; Content-Length is named too, so that a change in its defaults cannot unbind the size.
 */
function signedBodyHeaders(
  contentType: string | undefined,
  contentLength: number | undefined,
): Set<string> | undefined {
  const names = [...(contentType ? ['content-type'] : []), ...(contentLength !== undefined ? ['content-length'] : [])];
  return names.length > 0 ? new Set(names) : undefined;
}

export function createS3Client(config: StorageConfig): S3Client {
  return new S3Client({
    endpoint: config.S3_ENDPOINT,
    region: config.S3_REGION,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY },
    // Presigned PUTs are made by clients (curl, browsers) that send no CRC32 checksum header.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * A GET's body in one Buffer. In Node the SDK's body is the HTTP response stream; its
 * transformToByteArray concatenates the chunks and Buffer.from copies that again, two copies of
 * every byte where Buffer.concat makes one (on a delivery node's cache miss, 2 MB each).
 */
export async function readBody(body: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * The bucket's one CORS rule: browsers (the dashboard, a customer's page) PUT uploads and parts to
 * presigned URLs, and may GET or HEAD what they uploaded. `origins` empty: any origin, which is safe
 * because a presigned URL is itself the credential (no cookies, no ambient authority). ETag is
 * exposed for clients that track multipart parts themselves (Kino's complete lists them itself).
 */
export function browserUploadCorsRule(origins: readonly string[]): CORSRule {
  return {
    AllowedOrigins: origins.length > 0 ? [...origins] : ['*'],
    AllowedMethods: ['PUT', 'GET', 'HEAD'],
    AllowedHeaders: ['*'],
    ExposeHeaders: ['ETag'],
    MaxAgeSeconds: 3600,
  };
}

/** Whether two rule lists allow the same (order of values and fields S3 adds on its own aside). */
function sameCorsRules(a: readonly CORSRule[], b: readonly CORSRule[]): boolean {
  const normal = (rules: readonly CORSRule[]) =>
    JSON.stringify(
      rules.map((rule) =>
        [rule.AllowedOrigins, rule.AllowedMethods, rule.AllowedHeaders, rule.ExposeHeaders].map((values) =>
          [...(values ?? [])].sort(),
        ),
      ),
    );
  return normal(a) === normal(b);
}

/** SHA-256 and HMAC-SHA-256 from node:crypto, in the shape the SigV4 signer asks for. */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);
class NodeSha256 {
  private hash: Hash | Hmac;
  private readonly secret?: SourceData;
  constructor(secret?: SourceData) {
    this.secret = secret;
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

/**
 * One segment of a key as SigV4 wants it in the path: every byte but A-Z a-z 0-9 - _ . ~ escaped
 * (encodeURIComponent leaves ! ' ( ) * as they are, which S3 would sign escaped).
 */
function escapeKeySegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * GETs of objects, signed with SigV4 and sent with undici rather than through the SDK: a 2 MB GET
 * cost the SDK about 9 ms of CPU on this project's machine and this path about 4.5 ms (raw socket
 * reads alone: about 3 ms), and every delivery cache miss is one (docs/delivery-performance.md).
 * Same endpoint, bucket addressing and credentials as the SDK client.
 */
class ObjectReader {
  private readonly signer: SignatureV4;
  private readonly endpoint: URL;
  // Connections to storage stay open between misses (keep-alive), as the SDK's agent keeps them.
  private readonly agent = new Agent({ connections: 64, keepAliveTimeout: 30_000 });

  private readonly config: StorageConfig;
  constructor(config: StorageConfig) {
    this.config = config;
    this.endpoint = new URL(config.S3_ENDPOINT);
    this.signer = new SignatureV4({
      service: 's3',
      region: config.S3_REGION,
      credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY },
      sha256: NodeSha256,
      // S3 signs the path as sent (escaped once, below), not escaped again.
      uriEscapePath: false,
      applyChecksum: false,
    });
  }

  close(): void {
    void this.agent.close();
  }

  /** The GET's status, headers and body stream; the caller reads or destroys the body. */
  async get(key: string) {
    const escapedKey = key.split('/').map(escapeKeySegment).join('/');
    const pathStyle = this.config.S3_FORCE_PATH_STYLE;
    const hostname = pathStyle ? this.endpoint.hostname : `${this.config.S3_BUCKET}.${this.endpoint.hostname}`;
    const host = this.endpoint.port ? `${hostname}:${this.endpoint.port}` : hostname;
    const basePath = this.endpoint.pathname.replace(/\/$/, '');
    const path = `${basePath}${pathStyle ? `/${this.config.S3_BUCKET}` : ''}/${escapedKey}`;
    const signed = await this.signer.sign({
      method: 'GET',
      protocol: this.endpoint.protocol,
      hostname,
      port: this.endpoint.port ? Number(this.endpoint.port) : undefined,
      path,
      query: {},
      headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    });
    try {
      return await request(`${this.endpoint.protocol}//${host}${path}`, {
        dispatcher: this.agent,
        headers: signed.headers,
      });
    } catch (error) {
      // No answer at all: refused, reset, timed out.
      throw new StorageUnavailableError(error);
    }
  }
}

/** The bucket, reached only through these methods: callers never hold the S3 client. */
export class Storage {
  private readonly s3: S3Client;
  /**
   * Signs presigned URLs: a client of S3_PUBLIC_ENDPOINT when the config has one, else the same
   * client. SigV4 signs the Host header, so a URL for another address must be signed for that
   * address; rewriting the host of a URL signed for S3_ENDPOINT would break its signature.
   */
  private readonly presigner: S3Client;
  private readonly bucket: string;
  private readonly reader: ObjectReader;

  constructor(config: StorageConfig & Partial<PublicStorageConfig>) {
    this.s3 = createS3Client(config);
    this.reader = new ObjectReader(config);
    this.presigner = config.S3_PUBLIC_ENDPOINT
      ? createS3Client({ ...config, S3_ENDPOINT: config.S3_PUBLIC_ENDPOINT })
      : this.s3;
    this.bucket = config.S3_BUCKET;
  }

  /**
   * A PUT URL bound to one key and, when given, one Content-Type and one Content-Length: both are
   * signed, so storage refuses a body of another type or size (a ticket for a small file cannot
   * store a large one).
   */
  presignPut(key: string, expiresInSeconds: number, contentType?: string, contentLength?: number): Promise<string> {
    return getSignedUrl(
      this.presigner,
      new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType, ContentLength: contentLength }),
      { expiresIn: expiresInSeconds, signableHeaders: signedBodyHeaders(contentType, contentLength) },
    );
  }

  presignGet(key: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
      expiresIn: expiresInSeconds,
    });
  }

  /** Every request to storage: an outage comes out as StorageUnavailableError, whatever the SDK's words. */
  private async reach<Output>(request: Promise<Output>): Promise<Output> {
    try {
      return await request;
    } catch (error) {
      throw isUnavailable(error) ? new StorageUnavailableError(error) : error;
    }
  }

  /** Size and type of an object, or undefined when there is none. */
  async head(key: string): Promise<{ size: number; contentType?: string; etag?: string } | undefined> {
    try {
      const result = await this.reach(this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
      return { size: result.ContentLength ?? 0, contentType: result.ContentType, etag: result.ETag };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return undefined;
      throw error;
    }
  }

  async put(key: string, body: string | Uint8Array, contentType: string): Promise<void> {
    await this.reach(
      this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType })),
    );
  }

  /** The whole object, or undefined when there is none. */
  async get(key: string): Promise<Buffer | undefined> {
    return (await this.getObject(key))?.body;
  }

  /** The whole object and its ETag (quoted, as S3 sends it), or undefined when there is none. */
  async getObject(key: string): Promise<{ body: Buffer; etag?: string } | undefined> {
    const object = await this.getObjectStream(key);
    return object && { body: await readBody(object.body), etag: object.etag };
  }

  /**
   * The object as it arrives: its body stream, its size (Content-Length), ETag and type, once storage
   * has answered the GET's headers; undefined when there is none. The caller must read or destroy
   * `body`. A delivery node's cache miss streams it to the viewer while it fills the cache.
   */
  async getObjectStream(
    key: string,
  ): Promise<{ body: Readable; size?: number; etag?: string; contentType?: string } | undefined> {
    const response = await this.reader.get(key);
    if (response.statusCode === 200) {
      const length = response.headers['content-length'];
      const etag = response.headers.etag;
      const contentType = response.headers['content-type'];
      return {
        body: response.body,
        size: typeof length === 'string' ? Number(length) : undefined,
        etag: typeof etag === 'string' ? etag : undefined,
        contentType: typeof contentType === 'string' ? contentType : undefined,
      };
    }
    const text = await response.body.text().catch(() => '');
    if (response.statusCode === 404) return undefined;
    if (response.statusCode >= 500)
      throw new StorageUnavailableError(new Error(`storage answered ${response.statusCode}: ${text.slice(0, 300)}`));
    throw new Error(`storage refused GET ${key}: ${response.statusCode} ${text.slice(0, 300)}`);
  }

  /**
   * The first `length` bytes of an object (a ranged GET: a 5 GB upload costs no more than a small one),
   * fewer when the object is shorter; undefined when there is none.
   */
  async getFirstBytes(key: string, length: number): Promise<Buffer | undefined> {
    try {
      const result = await this.reach(
        this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${length - 1}` })),
      );
      return await readBody(result.Body as Readable);
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return undefined;
      // An empty object has no byte 0: S3 answers 416 to any range.
      if (status === 416) return Buffer.alloc(0);
      throw error;
    }
  }

  /** Every key under a prefix, in S3's (lexicographic) order. */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.reach(
        this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token })),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return keys;
  }

  /** Removes one object; removing one that is not there is fine (S3 answers 204 either way). */
  async delete(key: string): Promise<void> {
    await this.reach(this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  /** Removes these objects, up to 1000 per request (S3's limit); missing ones are fine. */
  async deleteMany(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      await this.reach(
        this.s3.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true },
          }),
        ),
      );
    }
  }

  /** Removes every object under a prefix; returns how many. */
  async deletePrefix(prefix: string): Promise<number> {
    const keys = await this.list(prefix);
    await this.deleteMany(keys);
    return keys.length;
  }

  /** Starts a multipart upload of `key`; returns storage's upload id. */
  async createMultipartUpload(key: string, contentType: string): Promise<string> {
    const result = await this.reach(
      this.s3.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType })),
    );
    if (!result.UploadId) throw new Error(`storage gave no upload id for ${key}`);
    return result.UploadId;
  }

  /** A PUT URL for one part (1..10,000) of a multipart upload, bound to its size as presignPut's is. */
  presignUploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    contentLength: number,
    expiresInSeconds: number,
  ): Promise<string> {
    return getSignedUrl(
      this.presigner,
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: partNumber,
        ContentLength: contentLength,
      }),
      { expiresIn: expiresInSeconds, signableHeaders: signedBodyHeaders(undefined, contentLength) },
    );
  }

  /** Stores one part (1..10,000) of a multipart upload from memory (the URL ingest's parts); returns it as listParts would. */
  async uploadPart(key: string, uploadId: string, partNumber: number, body: Uint8Array): Promise<StoredPart> {
    try {
      const result = await this.reach(
        this.s3.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: uploadId,
            PartNumber: partNumber,
            Body: body,
            ContentLength: body.byteLength,
          }),
        ),
      );
      return { partNumber, size: body.byteLength, etag: result.ETag ?? '' };
    } catch (error) {
      if (isNoSuchUpload(error))
        throw new NoSuchUploadError(`no multipart upload ${uploadId} for ${key}`, { cause: error });
      throw error;
    }
  }

  /** The parts received so far, by part number; throws NoSuchUploadError when the upload is gone. */
  async listParts(key: string, uploadId: string): Promise<StoredPart[]> {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    try {
      do {
        const page = await this.reach(
          this.s3.send(
            new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
          ),
        );
        for (const part of page.Parts ?? []) {
          if (part.PartNumber !== undefined)
            parts.push({ partNumber: part.PartNumber, size: part.Size ?? 0, etag: part.ETag ?? '' });
        }
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (error) {
      if (isNoSuchUpload(error))
        throw new NoSuchUploadError(`no multipart upload ${uploadId} for ${key}`, { cause: error });
      throw error;
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /** Joins the parts (in part-number order) into the object `key`. */
  async completeMultipartUpload(key: string, uploadId: string, parts: readonly StoredPart[]): Promise<void> {
    try {
      await this.reach(
        this.s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
          }),
        ),
      );
    } catch (error) {
      if (isNoSuchUpload(error))
        throw new NoSuchUploadError(`no multipart upload ${uploadId} for ${key}`, { cause: error });
      throw error;
    }
  }

  /** Drops a multipart upload and its parts; one already gone is fine. */
  async abortMultipartUpload(key: string, uploadId: string): Promise<void> {
    try {
      await this.reach(
        this.s3.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })),
      );
    } catch (error) {
      if (!isNoSuchUpload(error)) throw error;
    }
  }

  /** The multipart uploads in progress (neither completed nor aborted) under a prefix: their keys and ids. */
  async listMultipartUploads(prefix: string): Promise<Array<{ key: string; uploadId: string }>> {
    const uploads: Array<{ key: string; uploadId: string }> = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.reach(
        this.s3.send(
          new ListMultipartUploadsCommand({
            Bucket: this.bucket,
            Prefix: prefix,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        ),
      );
      for (const upload of page.Uploads ?? [])
        if (upload.Key && upload.UploadId) uploads.push({ key: upload.Key, uploadId: upload.UploadId });
      const more = page.IsTruncated === true;
      keyMarker = more ? page.NextKeyMarker : undefined;
      uploadIdMarker = more ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return uploads;
  }

  /** Creates the bucket unless it exists (`kino admin bootstrap`); true when this call created it. */
  async createBucketIfMissing(): Promise<boolean> {
    try {
      await this.reach(this.s3.send(new HeadBucketCommand({ Bucket: this.bucket })));
      return false;
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status !== 404) throw error;
    }
    await this.reach(this.s3.send(new CreateBucketCommand({ Bucket: this.bucket })));
    return true;
  }

  /** Makes `rules` the bucket's CORS configuration unless it already is; true when this call changed it. */
  async ensureCorsRules(rules: CORSRule[]): Promise<boolean> {
    let current: CORSRule[] = [];
    try {
      current = (await this.reach(this.s3.send(new GetBucketCorsCommand({ Bucket: this.bucket })))).CORSRules ?? [];
    } catch (error) {
      // A bucket without a CORS configuration answers 404 NoSuchCORSConfiguration.
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status !== 404) throw error;
    }
    if (sameCorsRules(current, rules)) return false;
    await this.reach(
      this.s3.send(new PutBucketCorsCommand({ Bucket: this.bucket, CORSConfiguration: { CORSRules: rules } })),
    );
    return true;
  }

  /** Cheap reachability check for /health. */
  async ping(): Promise<void> {
    await this.reach(this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1 })));
  }

  /** Closes the client's sockets (at shutdown). */
  close(): void {
    this.s3.destroy();
    if (this.presigner !== this.s3) this.presigner.destroy();
    this.reader.close();
  }
}
