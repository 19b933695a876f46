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
const NOT_A_TEST = ['**/*.test.ts', '**/*.contract.ts', '**/*.testkit.ts', '**/*.simulator.ts'];
/** Layers a platform folder never reaches: adapters never touch the database, the queue or Fastify. */
const platformLayers = (up) => ({
  regex: `^${up}(modules|engines|core|jobs|db|http|admin)/`,
  message: 'A platform never imports modules/, engines/, core/, jobs/, db/, http/ or admin/: adapters get what they need through the OperationContext.',
});
/**
 * Another platform's folder, seen from inside src/platforms/<id>/ (common/ is where shared code
 * goes; sandbox/ is the sandbox's kit contract that each platform's `sandbox.ts` implements).
 */
const otherPlatform = {
  regex: '^\\.\\./(?!common/|sandbox/|\\.\\./)[^/]+/',
  message: "One platform never imports another platform's folder: move what both need to src/platforms/common/.",
};
const noEngine = {
  regex: '^(\\.\\./)+engines/',
  message: 'A module never imports an engine: enqueue through the ports in src/core/queues.ts, share code through src/core/.',
};
const noModule = (who) => ({
  regex: '^(\\.\\./)+modules/',
  message: `${who} never imports a module: give it its own repository, or move what both need down to src/core/.`,
});
const noHttp = (who) => ({ regex: '^(\\.\\./)+http/', message: `${who} never imports src/http/ (the edge is above it).` });
const noEngineFrom = (who) => ({ regex: '^(\\.\\./)+engines/', message: `${who} never imports an engine.` });
const boundaries = [
  {
    // 1. routes parse, answer and call a service; they never reach a repository (types included).
    files: ['src/modules/**/*.routes.ts'],
    rules: restrictImports([{ regex: '\\.repository(\\.js)?$', message: 'A route calls a service, never a repository.' }, noEngine]),
  },
  {
    // 5. services hold the rules: no route file, nothing from the HTTP edge.
    files: ['src/modules/**/*.service.ts'],
    rules: restrictImports([
      { regex: '\\.routes(\\.js)?$', message: 'A service never imports a route file (routes call services, not the other way).' },
      { regex: '^(\\.\\./)+http/', message: 'A service never imports src/http/ (shared pieces such as pagination live in src/lib/).' },
      noEngine,
    ]),
  },
  {
    // 6. the rest of a module (repositories, schemas, pages): no engine either.
    files: ['src/modules/**/*.ts'],
    ignores: [...NOT_A_TEST, '**/*.routes.ts', '**/*.service.ts'],
    rules: restrictImports([noEngine]),
  },
  {
    // 7. engines run on the job engine with their own repositories: no module, no HTTP edge.
    files: ['src/engines/**/*.ts'],
    ignores: NOT_A_TEST,
    rules: restrictImports([noModule('An engine'), noHttp('An engine')]),
  },
  {
    // 8. core holds what modules and engines both use: it imports neither, nor the edge.
    files: ['src/core/**/*.ts'],
    ignores: NOT_A_TEST,
    rules: restrictImports([noModule('src/core/'), noEngineFrom('src/core/'), noHttp('src/core/')]),
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
    // 10. the MCP front door (like routes) calls services: no repository, no engine, no route file.
    files: ['src/mcp/**/*.ts'],
    ignores: NOT_A_TEST,
    rules: restrictImports([
      { regex: '\\.repository(\\.js)?$', message: 'An MCP tool calls a service, never a repository.' },
      { regex: '\\.routes(\\.js)?$', message: 'An MCP tool calls the service its route calls and shares its schemas (*.schemas.ts), never the route file.' },
      noEngineFrom('src/mcp/'),
    ]),
  },
  {
    // 2. adapter code: no other platform, no upper layer, no database/queue/Fastify package.
    files: ['src/platforms/*/**/*.ts'],
    ignores: [...NOT_A_TEST, 'src/platforms/sandbox/**'],
    rules: restrictImports(
      [otherPlatform, platformLayers('\\.\\./\\.\\./')],
      ['fastify', 'pg-boss', 'drizzle-orm', 'pg', '@electric-sql/pglite'].map((name) => ({
        name,
        message: 'Platform adapters never touch the database, the queue or Fastify.',
      })),
    ),
  },
  {
    // 2. the sandbox (issue 28): like the registry, it knows every platform's kit (their
    // `sandbox.ts`, loaded on first use) and runs their simulators in-process; no upper layer.
    files: ['src/platforms/sandbox/**/*.ts'],
    ignores: NOT_A_TEST,
    rules: restrictImports([platformLayers('\\.\\./\\.\\./')]),
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

// 9. SQL lives in repositories (and db/, where the schema, the client and migrations are): anywhere
// else in src/ a value import of drizzle-orm, a table from db/schema, a database driver, or a raw
// `executeSql`/`execute` call is an error. Types and the schema's constants stay importable.
const SQL_MESSAGE = 'SQL lives in *.repository.ts files (and src/db/): move this query into the repository of the module or engine.';
const schemaConstants = ['MEMBER_ROLES', 'SHORT_LINK_PROVIDERS'];
const noSql = {
  files: ['src/**/*.ts'],
  ignores: [...NOT_A_TEST, '**/*.repository.ts', 'src/db/**', 'src/jobs/job-engine.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: "ImportDeclaration[importKind='value'][source.value=/^(drizzle-orm|pg|@electric-sql\\/pglite)(\\/|$)/]", message: SQL_MESSAGE },
      {
        selector: `ImportDeclaration[importKind='value'][source.value=/\\/db\\/schema(\\/|\\.js$)/] > ImportSpecifier[importKind='value']:not([imported.name=/^(${schemaConstants.join('|')})$/])`,
        message: SQL_MESSAGE,
      },
      { selector: "CallExpression[callee.property.name=/^(executeSql|execute)$/]", message: SQL_MESSAGE },
    ],
  },
};

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
  noSql,
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
