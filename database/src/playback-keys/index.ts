// The keys playback tokens are signed with (the signing_keys table) and the minting of those tokens:
// the API mints, `kino admin playback-keys` rotates, delivery nodes verify with the published JWKS.
export * from './keyring.ts';
export * from './tokens.ts';
