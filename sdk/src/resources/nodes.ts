// The operators' interface (`/operators/nodes`): the encode nodes of the farm, draining one, revoking one.
// It takes the control plane's operator token (KinoOptions.operatorToken), not an API key.
import { APIError, KinoError } from '../errors.ts';
import type { CallOptions, HttpClient } from '../http.ts';
import type { EncodeNode, ErrorEnvelope, RevokedNode, WaitingEncode } from '../types.ts';

export class Nodes {
  private readonly http: HttpClient;
  private readonly operatorToken: string | undefined;
  constructor(http: HttpClient, operatorToken: string | undefined) {
    this.http = http;
    this.operatorToken = operatorToken;
  }

  private async send<T>(
    method: 'GET' | 'POST',
    path: string,
    { signal, timeoutMs, maxRetries }: CallOptions,
  ): Promise<T> {
    if (!this.operatorToken)
      throw new KinoError("operatorToken is required for the operators' interface (or set KINO_OPERATOR_TOKEN)");
    const headers = {
      Authorization: `Bearer ${this.operatorToken}`,
      Accept: 'application/json',
      'User-Agent': 'kino-sdk/0.1.0',
    };
    // Draining and revoking are idempotent, so a retried POST is safe without an Idempotency-Key.
    const response = await this.http.fetchWithRetries(
      this.http.url(path),
      { method, headers },
      { signal, timeoutMs, maxRetries },
    );
    const text = await response.text();
    const payload = text ? (JSON.parse(text) as { body?: T } & Partial<ErrorEnvelope>) : undefined;
    if (!response.ok) throw APIError.fromResponse(response.status, payload, response.headers);
    return payload?.body as T;
  }

  /**
   * Every node the registry has seen (newest first), `gone` ones included.
   * @example
   * const kino = new Kino({ apiUrl, operatorToken: process.env.KINO_OPERATOR_TOKEN });
   * for (const node of await kino.nodes.list()) console.log(node.id, node.state, `${node.slotsInUse}/${node.slots}`);
   */
  async list(options: CallOptions = {}): Promise<EncodeNode[]> {
    const body = await this.send<{ nodes: EncodeNode[] }>('GET', '/operators/nodes', options);
    return body.nodes;
  }

  /**
   * The encodes that wait because no live node can run them (AV1 with no node that has the quality
   * ffmpeg, labels no node carries), oldest first, each with why; they start when such a node joins.
   * @example
   * for (const w of await kino.nodes.waiting()) console.log(w.videoId, w.waitingFor);
   */
  async waiting(options: CallOptions = {}): Promise<WaitingEncode[]> {
    const body = await this.send<{ waiting: WaitingEncode[] }>('GET', '/operators/nodes', options);
    return body.waiting;
  }

  /**
   * Drains a node: it takes no new encodes and finishes those it runs. Rejects with NotFoundError
   * (`node_not_found`) for a node the registry does not know.
   * @example
   * const node = await kino.nodes.drain('node_abc');
   * console.log(node.state); // 'draining'
   */
  drain(nodeId: string, options: CallOptions = {}): Promise<EncodeNode> {
    return this.send('POST', `/operators/nodes/${encodeURIComponent(nodeId)}/drain`, options);
  }

  /**
   * Ends an operator's drain: the node takes work again at once.
   * @example
   * await kino.nodes.undrain('node_abc');
   */
  undrain(nodeId: string, options: CallOptions = {}): Promise<EncodeNode> {
    return this.send('POST', `/operators/nodes/${encodeURIComponent(nodeId)}/undrain`, options);
  }

  /**
   * Revokes a node's credential for good: the registry refuses its certificate from its next call
   * on, and the node is dropped now (the encodes it runs move to other nodes). Enroll a new
   * node to replace it. Rejects with NotFoundError (`node_not_found`) for a node without a credential.
   * @example
   * const revoked = await kino.nodes.revoke('node_abc');
   * console.log(revoked.revokedAt);
   */
  revoke(nodeId: string, options: CallOptions = {}): Promise<RevokedNode> {
    return this.send('POST', `/operators/nodes/${encodeURIComponent(nodeId)}/revoke`, options);
  }
}
