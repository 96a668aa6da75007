// Lint runs inside `npm test`. Type-aware rules catch the promise bugs that matter most in a
// farm of processes: an un-awaited promise is a lost error.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import vitest from '@vitest/eslint-plugin';

const processPackages = ['api', 'orchestrator', 'encode-node', 'delivery', 'ingest', 'cli'];
const productionPackages = [...processPackages, 'infra', 'database', 'ffmpeg', 'analytics', 'webhooks', 'presenters'];

/**
 * What the production code of package `name` may not import: dev tooling, PGlite, another process
 * package.
 */
function boundaryPatterns(name) {
  return [
    {
      group: ['@kino/dev', '@kino/dev/*', '**/dev/src/**'],
      message: 'dev tooling: production code does not import it',
    },
    {
      group: [
        '@kino/database/testing',
        '**/testing/pglite*',
        '@electric-sql/pglite',
        '@electric-sql/pglite/*',
        'kysely-pglite',
      ],
      message: 'PGlite is for tests: production code opens PostgreSQL',
    },
    ...processPackages
      .filter((other) => other !== name)
      .map((other) => ({
        group: [`@kino/${other}`, `@kino/${other}/*`, `**/${other}/src/**`],
        message: `${name} does not import the process package ${other}: move what both use to a shared package`,
      })),
  ];
}

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '.kino/**',
      'proto/src/generated/**',
      '**/dist/**',
      'sdk/package/**',
      'cli/package/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      // vitest's test()/describe()/it() register work the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'vitest', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The dashboard and the player run in the browser (dashboard/tsconfig.json: Preact's JSX, DOM globals).
    files: ['dashboard/src/**/*.ts', 'dashboard/src/**/*.tsx', 'player/src/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  // Production code never starts services or waits on them: launchers are dev tooling (tests may).
  // Nor does it open PGlite: production databases are PostgreSQL; the in-process one is for tests.
  // And no process package imports another; shared packages import no process package: what two
  // processes share lives in a package named for what it is (README, "What each folder holds").
  ...productionPackages.map((name) => ({
    files: [`${name}/src/**/*.ts`],
    ignores: ['**/*.test.ts', 'database/src/testing/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: boundaryPatterns(name) }] },
  })),
  {
    // The processes' code stays in functions a reader holds in one view, and a helper that can be
    // tested alone: no closure of hundreds of lines holding a whole process's handlers (every line
    // counts, comments and blanks too).
    files: [
      'api/src/**/*.ts',
      'orchestrator/src/**/*.ts',
      'encode-node/src/**/*.ts',
      'delivery/src/**/*.ts',
      'ingest/src/**/*.ts',
    ],
    rules: { 'max-lines-per-function': ['error', { max: 120 }] },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins there.
    files: ['orchestrator/src/workflows/**/*.ts'],
    rules: {
      // Its own rule replaces the package's (flat config keeps the last), so the boundaries come along.
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...boundaryPatterns('orchestrator'),
            {
              group: ['node:*', 'fs', 'path', 'crypto', 'child_process', '@kino/infra', 'pg', 'kysely'],
              message: "workflow code runs in Temporal's deterministic sandbox",
            },
          ],
        },
      ],
    },
  },
  {
    // The shared contract is loaded by the SDK and by workflow code: it imports only its own files.
    files: ['proto/src/contract/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!\\./)', message: 'proto/src/contract imports nothing outside itself.' }] },
      ],
    },
  },
  {
    // No focused, skipped or todo test reaches the branch: each would silently shrink the run.
    files: ['**/*.test.ts', '**/*.test.mjs', '**/*.cases.ts', '**/*.fixture.mjs'],
    plugins: { vitest },
    rules: {
      'vitest/no-focused-tests': 'error',
      'vitest/no-disabled-tests': 'error',
      'vitest/warn-todo': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
