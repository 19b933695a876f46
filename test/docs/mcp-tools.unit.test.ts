import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../scripts/build-state.js';
import { documentedTools, TOOLS_DOC, toolsMarkdown } from '../../src/mcp/tools-doc.js';

describe('docs/mcp-tools.md', () => {
  it('is what `npm run docs:mcp` writes from the tool definitions (run it after changing a tool)', () => {
    const tools = documentedTools();
    expect(tools.length).toBeGreaterThan(50);
    expect(readFileSync(join(root, TOOLS_DOC), 'utf8')).toBe(toolsMarkdown(tools));
  });
});
