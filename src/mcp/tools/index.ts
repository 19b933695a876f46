import type { AppDeps } from '../../deps.js';
import type { ToolDefinition } from '../tool.js';
import { channelTools } from './channels.js';
import { mediaTools } from './media.js';
import { postTools } from './posts.js';
import { postizTools } from './postiz.js';

/** Every tool the MCP server offers, each on the service method its route calls. */
export function allTools(services: AppDeps['services']): ToolDefinition[] {
  return [...channelTools(services), ...postTools(services.posts), ...mediaTools(services.media), ...postizTools(services)];
}
