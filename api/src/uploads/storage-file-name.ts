/**
 * The file name part of an upload's storage key: letters, digits, `.`, `_` and `-` only, so a
 * name can never add path segments or need escaping in a URL. The original name is kept in the database.
 */
export function storageFileName(filename: string): string {
  const cleaned = filename
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(-120);
  return cleaned || 'upload';
}
