import { randomBytes } from 'node:crypto';

const alphabet = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A random base62 string (rejection sampling keeps it uniform). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += alphabet[byte % 62];
    }
  }
  return out;
}

/** Identifiers carry a prefix naming what they are: org_…, env_…, vid_…, key_…, opt_… (operator token), upl_…, whk_…, node_…, img_…, enr_… (an enrollment token several nodes share) */
export function newId(
  prefix: 'org' | 'env' | 'vid' | 'key' | 'opt' | 'upl' | 'whk' | 'whd' | 'node' | 'job' | 'shr' | 'img' | 'enr',
): string {
  return `${prefix}_${randomBase62(16)}`;
}
