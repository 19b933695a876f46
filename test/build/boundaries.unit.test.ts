import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { root } from '../../scripts/build-state.js';

// The layer boundaries of eslint.config.js (issue 26) bite: each wrong-way import below, linted with
// the project's own configuration as the text of a real file, is an error of the import rule, and
// the right-way import next to it is not. (`npm run lint` over the whole tree is what keeps main clean.)

const RULE = '@typescript-eslint/no-restricted-imports';
let eslint: ESLint;

/** The messages of the import rule for `code` linted as if it were the file at `filePath`. */
async function restricted(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  // A parsing error (ruleId null) would silently mean nothing was checked.
  expect(result!.messages.filter((m) => m.ruleId === null)).toEqual([]);
  return result!.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

const use = (line: string, name: string) => `${line}\nexport const used = ${name};\n`;

beforeAll(async () => {
  eslint = new ESLint({ cwd: root });
  // The first typed lint builds the TypeScript program: pay for it once, here.
  await eslint.lintText('export {};\n', { filePath: 'src/lib/clock.ts' });
}, 180_000);

describe('eslint layer boundaries', { timeout: 120_000 }, () => {
  it('1. a route never imports a repository, not even its type; it imports its service', async () => {
    const file = 'src/modules/posts/posts.routes.ts';
    expect(await restricted(file, use("import { createPostsRepository } from './posts.repository.js';", 'createPostsRepository'))).toEqual([
      expect.stringContaining('A route calls a service, never a repository.'),
    ]);
    expect(await restricted(file, "import type { PostsRepository } from './posts.repository.js';\nexport type R = PostsRepository;\n")).toHaveLength(1);
    expect(await restricted(file, "import type { PostsService } from './posts.service.js';\nexport type S = PostsService;\n")).toEqual([]);
  });

  it("2. a platform never imports another platform's folder, an upper layer or the database/queue/Fastify packages", async () => {
    const adapter = 'src/platforms/linkedin-page/index.ts';
    expect(await restricted(adapter, use("import { linkedinPostUrl } from '../linkedin/client.js';", 'linkedinPostUrl'))).toEqual([
      expect.stringContaining("One platform never imports another platform's folder"),
    ]);
    for (const [line, name] of [
      ["import { integrations } from '../../db/schema/index.js';", 'integrations'],
      ["import { createPostsService } from '../../modules/posts/posts.service.js';", 'createPostsService'],
      ["import { createPublisher } from '../../engines/publishing/publisher.js';", 'createPublisher'],
      ["import { registerErrorHandler } from '../../http/error-handler.js';", 'registerErrorHandler'],
      ["import { eq } from 'drizzle-orm';", 'eq'],
      ["import Fastify from 'fastify';", 'Fastify'],
    ] as const) {
      expect(await restricted(adapter, use(line, name)), line).toHaveLength(1);
    }
    expect(await restricted(adapter, use("import { linkedinPostUrl } from '../common/linkedin-client.js';", 'linkedinPostUrl'))).toEqual([]);
    expect(await restricted(adapter, use("import { systemClock } from '../../lib/clock.js';", 'systemClock'))).toEqual([]);

    // Test kits, simulators and tests: still no other platform's folder (tests may read the database).
    expect(await restricted('src/platforms/hashnode/hashnode.testkit.ts', use("import { startMediaHost } from '../devto/devto.testkit.js';", 'startMediaHost'))).toHaveLength(1);
    expect(await restricted('src/platforms/hashnode/hashnode.testkit.ts', use("import { startMediaHost } from '../common/media-host.testkit.js';", 'startMediaHost'))).toEqual([]);
    const test = 'src/platforms/linkedin-page/linkedin-page.unit.test.ts';
    expect(await restricted(test, use("import { linkedinSimulator } from '../linkedin/linkedin.testkit.js';", 'linkedinSimulator'))).toHaveLength(1);
    expect(await restricted(test, use("import { integrations } from '../../db/schema/index.js';", 'integrations'))).toEqual([]);

    // The platform layer's own files: the registry imports every folder, but no upper layer.
    expect(await restricted('src/platforms/registry.ts', use("import { integrations } from '../db/schema/index.js';", 'integrations'))).toHaveLength(1);
    expect(await restricted('src/platforms/registry.ts', use("import { createLinkedinAdapter } from './linkedin/index.js';", 'createLinkedinAdapter'))).toEqual([]);
  });

  it('3. src/lib/ imports nothing from src/ above it', async () => {
    expect(await restricted('src/lib/clock.ts', use("import { AppError } from '../errors.js';", 'AppError'))).toEqual([
      expect.stringContaining('src/lib/ is the bottom layer'),
    ]);
    expect(await restricted('src/lib/pagination.ts', use("import { errorResponses } from '../http/error-schema.js';", 'errorResponses'))).toHaveLength(1);
    expect(await restricted('src/lib/pagination.ts', use("import { z } from 'zod';", 'z'))).toEqual([]);
  });

  it("4. src/http/ imports no value from a module (type-only imports are allowed)", async () => {
    const file = 'src/http/session.ts';
    expect(await restricted(file, use("import { createSessionsService } from '../modules/sessions/sessions.service.js';", 'createSessionsService'))).toEqual([
      expect.stringContaining('src/http/ imports no value from a module'),
    ]);
    expect(await restricted(file, "import type { SessionsService } from '../modules/sessions/sessions.service.js';\nexport type S = SessionsService;\n")).toEqual([]);
    expect(await restricted(file, use("import { csrfTokens } from '../lib/csrf-tokens.js';", 'csrfTokens'))).toEqual([]);
  });

  it('5. a service imports no route file and nothing from src/http/', async () => {
    const file = 'src/modules/media/media.service.ts';
    expect(await restricted(file, use("import { PAGE_SIZE } from '../../http/pagination.js';", 'PAGE_SIZE'))).toEqual([
      expect.stringContaining('A service never imports src/http/'),
    ]);
    expect(await restricted(file, use("import { mediaRoutes } from './media.routes.js';", 'mediaRoutes'))).toEqual([
      expect.stringContaining('A service never imports a route file'),
    ]);
    expect(await restricted(file, use("import { PAGE_SIZE } from '../../lib/pagination.js';", 'PAGE_SIZE'))).toEqual([]);
  });

  it('6. a module never imports an engine (it enqueues through core/queues.ts)', async () => {
    for (const file of ['src/modules/posts/posts.service.ts', 'src/modules/posts/posts.routes.ts', 'src/modules/posts/post-validation.ts']) {
      expect(await restricted(file, use("import { createPublisher } from '../../engines/publishing/publisher.js';", 'createPublisher')), file).toEqual([
        expect.stringContaining('A module never imports an engine'),
      ]);
    }
    expect(await restricted('src/modules/posts/posts.service.ts', "import type { PublishQueue } from '../../core/queues.js';\nexport type Q = PublishQueue;\n")).toEqual([]);
  });

  it('7. an engine never imports a module or the HTTP edge', async () => {
    const file = 'src/engines/publishing/publisher.ts';
    expect(await restricted(file, use("import { createMediaRepository } from '../../modules/media/media.repository.js';", 'createMediaRepository'))).toEqual([
      expect.stringContaining('An engine never imports a module'),
    ]);
    expect(await restricted(file, use("import { errorResponses } from '../../http/error-schema.js';", 'errorResponses'))).toEqual([
      expect.stringContaining('An engine never imports src/http/'),
    ]);
    expect(await restricted(file, use("import { emitEvent } from '../../core/events/events.js';", 'emitEvent'))).toEqual([]);
  });

  it('8. src/core/ imports no module, no engine and not the HTTP edge', async () => {
    const file = 'src/core/events/events.ts';
    for (const [line, name] of [
      ["import { createWebhooksService } from '../../modules/webhooks/webhooks.service.js';", 'createWebhooksService'],
      ["import { startDelivery } from '../../engines/webhooks/delivery.js';", 'startDelivery'],
      ["import { errorResponses } from '../../http/error-schema.js';", 'errorResponses'],
    ] as const) {
      expect(await restricted(file, use(line, name)), line).toHaveLength(1);
    }
    expect(await restricted(file, use("import { newId } from '../../lib/ids.js';", 'newId'))).toEqual([]);
  });
});

describe('the MCP front door', { timeout: 120_000 }, () => {
  it('10. a tool calls a service and shares the route\'s schemas; it never imports a repository, a route file or an engine', async () => {
    const file = 'src/mcp/tools/posts.ts';
    for (const [line, name] of [
      ["import { createPostsRepository } from '../../modules/posts/posts.repository.js';", 'createPostsRepository'],
      ["import { postsRoutes } from '../../modules/posts/posts.routes.js';", 'postsRoutes'],
      ["import { createPublisher } from '../../engines/publishing/publisher.js';", 'createPublisher'],
    ] as const) {
      expect(await restricted(file, use(line, name)), line).toHaveLength(1);
    }
    expect(await restricted(file, use("import { PostSchema } from '../../modules/posts/posts.schemas.js';", 'PostSchema'))).toEqual([]);
    expect(await restricted(file, "import type { PostsService } from '../../modules/posts/posts.service.js';\nexport type S = PostsService;\n")).toEqual([]);
  });
});

describe('no SQL outside repositories', { timeout: 120_000 }, () => {
  /** The messages of the SQL rule (`no-restricted-syntax`) for `code` linted as the file at `filePath`. */
  async function sqlMessages(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath });
    expect(result!.messages.filter((m) => m.ruleId === null)).toEqual([]);
    return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
  }

  it('9. a service, an engine or core code may not import drizzle-orm, a table or a driver, nor run raw SQL; a repository may', async () => {
    for (const file of ['src/modules/posts/posts.service.ts', 'src/engines/publishing/publisher.ts', 'src/core/events/events.ts', 'src/http/auth.ts']) {
      for (const [line, name] of [
        ["import { eq } from 'drizzle-orm';", 'eq'],
        ["import { sql } from 'drizzle-orm';", 'sql'],
        ["import { posts } from '../../db/schema/index.js';", 'posts'],
        ["import pg from 'pg';", 'pg'],
      ] as const) {
        expect(await sqlMessages(file, use(line, name)), `${file}: ${line}`).toEqual([expect.stringContaining('SQL lives in *.repository.ts files')]);
      }
      expect(await sqlMessages(file, 'export const f = (db: { execute(q: string): unknown }) => db.execute("select 1");\n'), file).toHaveLength(1);
      // types and the schema's constants are not SQL
      expect(await sqlMessages(file, "import type { SQL } from 'drizzle-orm';\nimport { MEMBER_ROLES, type MemberRole } from '../../db/schema/index.js';\nexport type T = [SQL, MemberRole];\nexport const r = MEMBER_ROLES;\n"), file).toEqual([]);
    }
    const repository = 'src/modules/posts/posts.repository.ts';
    expect(await sqlMessages(repository, use("import { and, eq } from 'drizzle-orm';", '[and, eq]'))).toEqual([]);
    expect(await sqlMessages(repository, use("import { posts } from '../../db/schema/index.js';", 'posts'))).toEqual([]);
  });
});
