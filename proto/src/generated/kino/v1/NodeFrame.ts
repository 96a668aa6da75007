// Original file: kino.proto

import type { RegisterRequest as _kino_v1_RegisterRequest, RegisterRequest__Output as _kino_v1_RegisterRequest__Output } from '../../kino/v1/RegisterRequest.ts';

/**
 * What a node sends on its Connect stream: its hello first, then tunnel bytes only.
 */
export interface NodeFrame {
  'hello'?: (_kino_v1_RegisterRequest | null);
  'tunnel'?: (Buffer | Uint8Array | string);
  'frame'?: "hello"|"tunnel";
}

/**
 * What a node sends on its Connect stream: its hello first, then tunnel bytes only.
 */
export interface NodeFrame__Output {
  'hello'?: (_kino_v1_RegisterRequest__Output | null);
  'tunnel'?: (Buffer);
  'frame'?: "hello"|"tunnel";
}
