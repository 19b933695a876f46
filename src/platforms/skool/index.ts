import { z } from 'zod';
import { readCredentials } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { PlatformError, type ConnectedAccount, type Credentials, type PlatformAdapter, type PublishResult } from '../platform.js';
import { createPost, get, uploadFile, type SkoolCredentials, type SkoolGroup, type SkoolLabel, type SkoolSelf } from './client.js';
import { SkoolCredentialsSchema, SkoolSettingsSchema, skoolMetadata } from './metadata.js';

/**
 * Skool has no public API. This adapter replays the session cookies of a logged-in browser
 * (`auth_token`, `client_id`, domain `.skool.com`) against Skool's private web API, as Postiz does.
 * Every endpoint, field and error word here comes from that working implementation, not from
 * public documentation (docs/platforms.md says which parts are assumed).
 */

const GROUPS_PAGE = 30;
/** label id Skool's groups without labels are posted with (no `labels` field is sent) */
export const NO_LABEL = 'none';

const StoredCredentials = z.object({ authToken: z.string().min(1), clientId: z.string().min(1), userId: z.string().min(1) });
const creds = (ctx: { credentials: Credentials }): SkoolCredentials => readCredentials(ctx, StoredCredentials, 'Skool');

/** Post URL: https://www.skool.com/<group slug>/<post name>. */
export function skoolPostUrl(groupSlug: string, name: string): string {
  return `https://www.skool.com/${encodeURIComponent(groupSlug)}/${encodeURIComponent(name)}`;
}

/** Creates the Skool adapter (session cookies; Skool's private web API). */
export function createSkoolAdapter(): PlatformAdapter {
  return {
    metadata: skoolMetadata,

    async connectWithCredentials(input, ctx): Promise<ConnectedAccount> {
      const { authToken, clientId } = SkoolCredentialsSchema.parse(input);
      let self: SkoolSelf;
      try {
        self = await get<SkoolSelf>(ctx, { authToken, clientId }, '/self');
      } catch (e) {
        if (e instanceof PlatformError && (e.kind === 'reconnect_required' || e.kind === 'rejected')) {
          throw new PlatformError('rejected', `Skool did not accept these session cookies (log in to skool.com again and copy auth_token and client_id): ${e.message}`, { field: 'authToken' });
        }
        throw e;
      }
      if (!self?.id) throw new PlatformError('rejected', 'Skool did not answer with the logged-in user for these cookies', { field: 'authToken' });
      const fullName = [self.first_name, self.last_name].filter(Boolean).join(' ').trim();
      return {
        internalId: String(self.id),
        name: fullName || self.name || String(self.id),
        profile: self.name ?? null,
        picture: self.metadata?.picture_profile || null,
        credentials: { authToken, clientId, userId: String(self.id) } satisfies SkoolCredentials,
        // The session lasts until the user logs out of Skool; its lifetime is not known.
        expiresAt: null,
      };
    },

    validate() {
      return [];
    },

    /**
     * Not idempotent (Skool takes no idempotency key and lists nothing for reconciliation here):
     * a retried call posts twice. The first item is a post in the chosen group and label with the
     * title; thread items are comments (`root_id` the post, `parent_id` the previous item).
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      const c = creds(ctx);
      const s = SkoolSettingsSchema.safeParse(settings);
      if (!s.success) throw new PlatformError('rejected', `Skool needs a group, a label and a title: ${s.error.issues.map((i) => i.path.join('.')).join(', ')}`);
      const { group, label, title } = s.data;
      const groupInfo = await get<SkoolGroup>(ctx, c, `/groups/${encodeURIComponent(group)}`);
      const slug = groupInfo?.name || group;
      const attachments: string[] = [];
      for (const m of item.media) attachments.push(await uploadFile(ctx, c, m));
      const content = htmlToText(item.content);
      const body = replyTo
        ? {
            post_type: 'comment',
            group_id: group,
            root_id: replyTo.rootId,
            parent_id: replyTo.id,
            metadata: { title: '', content, attachments: attachments.join(','), action: 0, video_ids: '' },
          }
        : {
            post_type: 'generic',
            group_id: group,
            metadata: { title, content, attachments: attachments.join(','), ...(label !== NO_LABEL ? { labels: label } : {}), action: 0, video_ids: '' },
          };
      const made = await createPost(ctx, c, body);
      if (!made?.id) throw new PlatformError('rejected', 'Skool answered without the id of the post');
      return { status: 'published', id: String(made.id), url: skoolPostUrl(slug, made.name || String(made.id)) };
    },

    async runTool(methodName, data, ctx) {
      const c = creds(ctx);
      if (methodName === 'groups') {
        const out: { id: string; name: string }[] = [];
        for (let offset = 0; offset < 3000; offset += GROUPS_PAGE) {
          const page = await get<{ groups?: SkoolGroup[] }>(ctx, c, `/users/${encodeURIComponent(c.userId)}/groups?offset=${offset}&limit=${GROUPS_PAGE}`);
          const groups = page?.groups ?? [];
          out.push(...groups.map((g) => ({ id: String(g.id), name: g.metadata?.display_name || g.name })));
          if (groups.length < GROUPS_PAGE) break;
        }
        return out;
      }
      if (methodName === 'label') {
        const { id } = (data ?? {}) as { id?: string };
        if (!id) throw new PlatformError('rejected', 'The label tool needs the group id (data.id)');
        const g = await get<SkoolGroup>(ctx, c, `/groups/${encodeURIComponent(id)}`);
        const ids = (g?.metadata?.labels ?? '').split(',').map((x) => x.trim()).filter(Boolean);
        // A group without labels: posts go without one.
        if (ids.length === 0) return [{ id: NO_LABEL, name: 'No label' }];
        const labels = [];
        for (const labelId of ids) {
          const l = await get<SkoolLabel>(ctx, c, `/labels/${encodeURIComponent(labelId)}`);
          labels.push({ id: String(l.id), name: l.metadata?.display_name || String(l.id) });
        }
        return labels;
      }
      throw new PlatformError('unsupported', `Skool has no tool ${methodName}`);
    },
  };
}
