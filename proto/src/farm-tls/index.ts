// @kino/proto/farm-tls: the farm's certificates (made and signed with @peculiar/x509, which loads the
// Reflect metadata polyfill: only the processes that issue or request certificates import this) and
// the enrollment token's format. The gRPC credentials built from the certificates are @kino/proto's.
export * from './x509.ts';
export * from './enrollment-token.ts';
