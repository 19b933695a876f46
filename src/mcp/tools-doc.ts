import type { AppDeps } from '../deps.js';
import { compileTools } from './server.js';
import type { CompiledTool } from './tool.js';
import { allTools } from './tools/index.js';

/** Where the tools page lives (`npm run docs:mcp` writes it; a test checks it is current). */
export const TOOLS_DOC = 'docs/mcp-tools.md';

/** The tools as documentation needs them: their definitions, with services that are never called. */
export function documentedTools(): CompiledTool[] {
  const never = (path: string): unknown =>
    new Proxy(() => undefined, {
      get: (_t, key) => never(`${path}.${String(key)}`),
      apply: () => {
        throw new Error(`${path}() called while documenting tools`);
      },
    });
  return compileTools(allTools(never('services') as AppDeps['services']));
}

type Property = { type?: string | string[]; description?: string; enum?: unknown[]; items?: Property; anyOf?: Property[] };

function typeOf(p: Property): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if (p.anyOf) return p.anyOf.map(typeOf).join(' \\| ');
  if (p.type === 'array') return `${p.items ? typeOf(p.items) : 'any'}[]`;
  if (Array.isArray(p.type)) return p.type.join(' \\| ');
  return p.type ?? 'any';
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown page listing every tool: what it does, its route, its hints and its arguments. */
export function toolsMarkdown(tools: CompiledTool[]): string {
  const lines = [
    '# MCP tools',
    '',
    'Written by `npm run docs:mcp` from the tool definitions in `src/mcp/tools/`; do not edit by hand.',
    'Every tool is offered on every transport (`/mcp`, `/mcp/{apiKey}`, `/sse/{apiKey}`, `tidings mcp`).',
    'Tools marked read-only may be called with a token granted `mcp:read` alone; the others need `mcp:write` (or an API key).',
    'Results are `structuredContent` following the tool\'s output schema (the HTTP route\'s answer), plus a one-line summary.',
    '',
    '| Tool | Route | Read-only | Destructive | Idempotent |',
    '|---|---|---|---|---|',
    ...tools.map((t) => {
      const a = t.def.annotations;
      return `| [\`${t.def.name}\`](#${t.def.name.toLowerCase()}) | ${t.def.route ? `\`${t.def.route}\`` : 'MCP only'} | ${a.readOnlyHint ? 'yes' : 'no'} | ${a.destructiveHint ? 'yes' : 'no'} | ${a.idempotentHint ? 'yes' : 'no'} |`;
    }),
  ];
  for (const t of tools) {
    lines.push('', `## ${t.def.name}`, '', `**${t.def.title}.** ${t.def.description}`, '');
    const properties = Object.entries((t.inputSchema.properties ?? {}) as Record<string, Property>);
    if (properties.length === 0) {
      lines.push('No arguments.');
      continue;
    }
    lines.push('| Argument | Type | Required | Meaning |', '|---|---|---|---|');
    for (const [name, p] of properties) {
      lines.push(`| \`${name}\` | ${cell(typeOf(p))} | ${(t.inputSchema.required ?? []).includes(name) ? 'yes' : 'no'} | ${cell(p.description ?? '')} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}
