// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layer boundaries (issue 26): imports point down only, and a wrong-way arrow fails `npm run lint`.
// Each file gets exactly one of the blocks below (a later block's options would replace an earlier
// one's for the same rule), so the globs are disjoint. Patterns are regular expressions on the import
// string as written (relative paths). `test/build/boundaries.unit.test.ts` shows each rule biting.
const restrictImports = (patterns, paths = []) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns, paths }],
});
const NOT_A_TEST = ['**/*.test.ts', '**/*.contract.ts'];
/** Layers a platform folder never reaches: adapters never touch the database, the queue or Fastify. */
const platformLayers = (up) => ({
  regex: `^${up}(modules|publishing|webhooks|video|jobs|db|http|admin)/`,
  message: 'A platform never imports modules/, the engines, jobs/, db/, http/ or admin/: adapters get what they need through the OperationContext.',
});
/** Another platform's folder, seen from inside src/platforms/<id>/ (common/ is where shared code goes). */
const otherPlatform = {
  regex: '^\\.\\./(?!common/|\\.\\./)[^/]+/',
  message: "One platform never imports another platform's folder: move what both need to src/platforms/common/.",
};
const boundaries = [
  {
    // 1. routes parse, answer and call a service; they never reach a repository (types included).
    files: ['src/modules/**/*.routes.ts'],
    rules: restrictImports([{ regex: '\\.repository(\\.js)?$', message: 'A route calls a service, never a repository.' }]),
  },
  {
    // 5. services hold the rules: no route file, nothing from the HTTP edge.
    files: ['src/modules/**/*.service.ts'],
    rules: restrictImports([
      { regex: '\\.routes(\\.js)?$', message: 'A service never imports a route file (routes call services, not the other way).' },
      { regex: '^(\\.\\./)+http/', message: 'A service never imports src/http/ (shared pieces such as pagination live in src/lib/).' },
    ]),
  },
  {
    // 3. lib is the bottom: generic helpers that import nothing else from src/.
    files: ['src/lib/**/*.ts'],
    rules: restrictImports([{ regex: '^\\.\\./', message: 'src/lib/ is the bottom layer: it imports nothing else from src/.' }]),
  },
  {
    // 4. the HTTP edge may name a module's types (the services it decorates requests with: erased at
    // compile time, no run-time edge) but imports no value from a module. Its tests build whole apps.
    files: ['src/http/**/*.ts'],
    ignores: NOT_A_TEST,
    rules: restrictImports([
      {
        regex: '^(\\.\\./)+modules/',
        allowTypeImports: true,
        message: 'src/http/ imports no value from a module (type-only imports are allowed): move what both need down to src/lib/.',
      },
    ]),
  },
  {
    // 2. adapter code: no other platform, no upper layer, no database/queue/Fastify package.
    files: ['src/platforms/*/**/*.ts'],
    ignores: [...NOT_A_TEST, '**/*.simulator.ts', '**/*.testkit.ts'],
    rules: restrictImports(
      [otherPlatform, platformLayers('\\.\\./\\.\\./')],
      ['fastify', 'pg-boss', 'drizzle-orm', 'pg', '@electric-sql/pglite'].map((name) => ({
        name,
        message: 'Platform adapters never touch the database, the queue or Fastify.',
      })),
    ),
  },
  {
    // 2. a platform's simulators and test kits (test code on Fastify): no other platform, no upper layer.
    files: ['src/platforms/*/**/*.simulator.ts', 'src/platforms/*/**/*.testkit.ts'],
    rules: restrictImports([otherPlatform, platformLayers('\\.\\./\\.\\./')]),
  },
  {
    // 2. a platform's tests may read the database to assert on it, but never use another platform's folder.
    files: ['src/platforms/*/**/*.test.ts', 'src/platforms/*/**/*.contract.ts'],
    rules: restrictImports([otherPlatform]),
  },
  {
    // 2. the platform layer's own files (registry, contract, outgoing HTTP client).
    files: ['src/platforms/*.ts'],
    ignores: NOT_A_TEST,
    rules: restrictImports([platformLayers('\\.\\./')]),
  },
];

export default tseslint.config(
  // (web/src/api/schema.d.ts is generated from the OpenAPI document: `npm run api:types`)
  { ignores: ['dist/', 'web/dist/', 'data/', 'node_modules/', 'src/db/migrations/', 'coverage/', 'scratch/', 'web/src/api/schema.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', 'bin/*.js', 'scripts/*.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Fastify plugins and handlers are async by contract even when they await nothing.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.test.ts', '**/*.contract.ts', 'test/**/*.ts'],
    rules: {
      // expect.any()/expect.objectContaining() are typed `any` by vitest.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  ...boundaries,
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
