// Runs Kino from its TypeScript sources, with no build step between a change and a run: `node
// --import <this file> <file.ts>` (or importing it first). tsx compiles the .ts files, and imports
// of @kino/* packages load their src/ (the "kino-source" export condition) instead of dist/, which
// is what production runs (`npm run build`). Used by dev/bin/kino.js, the tests and the benches.
import { register } from 'node:module';
import { register as registerTsx } from 'tsx/esm/api';

// The AWS SDK warns at every start that it will want a newer Node; the image's Node is newer already.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
registerTsx();
register('./source-condition-hooks.mjs', import.meta.url);
