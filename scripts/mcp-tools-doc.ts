/**
 * `npm run docs:mcp`: writes docs/mcp-tools.md, the list of MCP tools with their arguments, from
 * the tool definitions. Run it after adding or changing a tool (a test says when it is stale).
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { documentedTools, TOOLS_DOC, toolsMarkdown } from '../src/mcp/tools-doc.js';

const tools = documentedTools();
await writeFile(resolve(import.meta.dirname, '..', TOOLS_DOC), toolsMarkdown(tools));
console.log(`wrote ${TOOLS_DOC} (${tools.length} tools)`);
