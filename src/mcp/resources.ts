import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../deps.js';
import { AppError } from '../errors.js';
import { contextOf, type ChargedCaller } from './server.js';

export const CHANNELS_URI = 'tidings://channels';
const RULES_TEMPLATE = 'tidings://platforms/{identifier}/rules';
const RULES_URI = /^tidings:\/\/platforms\/([^/]+)\/rules$/;
const JSON_TYPE = 'application/json';

export const rulesUri = (identifier: string) => `tidings://platforms/${encodeURIComponent(identifier)}/rules`;

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value, null, 2) }] };
}

/** A refusal of the service as the JSON-RPC error of a resource read (the caller gave a wrong URI). */
function asMcpError(err: unknown): never {
  if (err instanceof AppError && err.status < 500) throw new McpError(ErrorCode.InvalidParams, err.message, { code: err.code });
  throw err;
}

/**
 * MCP resources: what an assistant may read before it acts, from the same service methods as the
 * routes. `tidings://channels` is the caller's organisation's channels (as `GET /integrations`);
 * `tidings://platforms/{identifier}/rules` a platform's posting rules (as `GET /integration-settings`
 * gives them for a channel, plus the settings a post must give), listed for every platform.
 */
export function resources(services: Pick<AppDeps['services'], 'integrations' | 'platforms'>) {
  const { integrations, platforms } = services;
  return (server: Server, charged: ChargedCaller) => {
    server.setRequestHandler(ListResourcesRequestSchema, (_request, extra) => {
      contextOf(extra.authInfo);
      const listed: Resource[] = [
        {
          uri: CHANNELS_URI,
          name: 'channels',
          title: 'Connected channels',
          description: "The organisation's connected channels: id (for create_posts and the channel tools), platform identifier, name, handle, disabled, needs reconnecting, group, posting times.",
          mimeType: JSON_TYPE,
        },
        ...platforms.listPlatforms().map((p) => ({
          uri: rulesUri(p.identifier),
          name: `${p.identifier}-rules`,
          title: `${p.name}: posting rules`,
          description: `What a post on ${p.name} must respect: length and its counting, editor, threads, media limits, required settings and the settings JSON Schema.`,
          mimeType: JSON_TYPE,
        })),
      ];
      return { resources: listed };
    });

    server.setRequestHandler(ListResourceTemplatesRequestSchema, (_request, extra) => {
      contextOf(extra.authInfo);
      return {
        resourceTemplates: [
          {
            uriTemplate: RULES_TEMPLATE,
            name: 'platform-rules',
            title: 'A platform\'s posting rules',
            description: 'Posting rules of the platform `identifier` (list_platforms names them): maximum length and how it is counted, editor, threads, media counts, types, sizes and durations, required settings and the settings JSON Schema.',
            mimeType: JSON_TYPE,
          },
        ],
      };
    });

    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const { organizationId } = await charged(extra.authInfo);
      const { uri } = request.params;
      if (uri === CHANNELS_URI) {
        return json(uri, { channels: await integrations.listIntegrations(organizationId) });
      }
      const rules = RULES_URI.exec(uri);
      if (rules) {
        let identifier: string;
        try {
          identifier = decodeURIComponent(rules[1]!);
        } catch {
          throw new McpError(ErrorCode.InvalidParams, `Resource ${uri}: the platform identifier is not a valid URI component`);
        }
        try {
          return json(uri, platforms.platformRules(identifier));
        } catch (err) {
          asMcpError(err);
        }
      }
      throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${uri}: resources/list and resources/templates/list name the ones this server has`);
    });
  };
}
