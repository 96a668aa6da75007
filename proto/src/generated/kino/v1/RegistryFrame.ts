// Original file: kino.proto

import type { RegisterResponse as _kino_v1_RegisterResponse, RegisterResponse__Output as _kino_v1_RegisterResponse__Output } from '../../kino/v1/RegisterResponse.ts';

/**
 * What the registry sends on a Connect stream: the welcome (the answer to the hello), then tunnel bytes only.
 */
export interface RegistryFrame {
  'welcome'?: (_kino_v1_RegisterResponse | null);
  'tunnel'?: (Buffer | Uint8Array | string);
  'frame'?: "welcome"|"tunnel";
}

/**
 * What the registry sends on a Connect stream: the welcome (the answer to the hello), then tunnel bytes only.
 */
export interface RegistryFrame__Output {
  'welcome'?: (_kino_v1_RegisterResponse__Output | null);
  'tunnel'?: (Buffer);
  'frame'?: "welcome"|"tunnel";
}
