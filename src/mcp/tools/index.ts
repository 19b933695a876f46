import type { AppDeps } from '../../deps.js';
import type { ToolDefinition } from '../tool.js';
import { activityTools } from './activity.js';
import { approvalTools } from './approvals.js';
import { assistTools } from './assist.js';
import { linkTools } from './links.js';
import { analyticsTools } from './analytics.js';
import { channelTools } from './channels.js';
import { commentTools } from './comments.js';
import { customerTools } from './customers.js';
import { evergreenTools } from './evergreen.js';
import { feedTools } from './feeds.js';
import { importTools } from './imports.js';
import { mediaTools } from './media.js';
import { notificationTools } from './notifications.js';
import { postTools } from './posts.js';
import { postizTools } from './postiz.js';
import { previewTools } from './previews.js';
import { sandboxTools } from './sandbox.js';
import { seriesTools } from './series.js';
import { templateTools } from './templates.js';
import { videoTools } from './video.js';
import { webhookTools } from './webhooks.js';

/** Every tool the MCP server offers, each on the service method its route calls. */
export function allTools(services: AppDeps['services']): ToolDefinition[] {
  return [
    ...channelTools(services),
    ...postTools(services.posts),
    ...importTools(services.imports),
    ...mediaTools(services.media),
    ...analyticsTools(services.analytics),
    ...notificationTools(services.notifications),
    ...customerTools(services.groups),
    ...webhookTools(services.webhooks),
    ...videoTools(services.video),
    ...sandboxTools(services.sandbox),
    ...seriesTools(services.series),
    ...evergreenTools(services.evergreen),
    ...feedTools(services.feeds),
    ...commentTools(services.comments),
    ...templateTools(services.templates),
    ...activityTools(services.activity),
    ...approvalTools(services.approvals),
    ...previewTools(services.previews),
    ...assistTools(services.assist),
    ...linkTools(services.links),
    ...postizTools(services),
  ];
}
