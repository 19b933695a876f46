import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { findForbiddenImports, packageOf, productionDependencies, runtimeImports } from '../../scripts/build-imports.js';
import { root } from '../../scripts/build-state.js';

/** The files `npm run build` compiles (tsconfig.build.json's include less its exclude). */
function buildSources(): string[] {
  const path = join(root, 'tsconfig.build.json');
  const config = ts.readConfigFile(path, (p) => ts.sys.readFile(p));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(path)).fileNames;
}

describe('what the production build imports', () => {
  it('imports only production dependencies (no test library, no simulator helper) from any file the build compiles', () => {
    const files = buildSources();
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.endsWith('src/main.ts'))).toBe(true);
    expect(findForbiddenImports(files, productionDependencies())).toEqual([]);
  });

  it('the check sees static, re-exported, side-effect, multi-line and dynamic imports, and skips erased type imports', () => {
    const text = [
      "import { a } from 'vitest';",
      "import {\n  b,\n  c,\n} from '@playwright/test/reporter';",
      "export { d } from 'fast-check';",
      "import 'happy-dom';",
      "const m = await import('tsx');",
      "import type { E } from 'type-only';",
      "export type { F } from 'type-only-2';",
      "import { readFileSync } from 'node:fs';",
      "import { join } from 'path';",
      "import { x } from './local.js';",
      "import { z } from 'zod/v4';",
    ].join('\n');
    expect(runtimeImports(text).sort()).toEqual(['@playwright/test', 'fast-check', 'happy-dom', 'tsx', 'vitest', 'zod'].sort());
    expect(packageOf('@aws-sdk/client-s3/dist/x')).toBe('@aws-sdk/client-s3');
    expect(packageOf('node:stream/promises')).toBeUndefined();
  });

  it('reports a compiled file that imports a test library', () => {
    const dir = mkdtempSync(join(tmpdir(), 'build-imports-'));
    writeFileSync(join(dir, 'ok.js'), "import { z } from 'zod';\nimport pino from 'pino';\n");
    writeFileSync(join(dir, 'bad.js'), "import { expect } from 'vitest';\n");
    const found = findForbiddenImports([join(dir, 'ok.js'), join(dir, 'bad.js')], productionDependencies());
    expect(found).toEqual([{ file: join(dir, 'bad.js'), pkg: 'vitest' }]);
  });
});
