import { z } from 'zod';
import { readCredentials, storedText, storedTextOrEmpty } from '../common/credentials.js';
import { htmlToText } from '../common/html.js';
import { buildAuthorizeUrl, exchangeCode, type OAuthApp } from '../common/oauth2.js';
import {
  PlatformError,
  type ConnectedAccount,
  type Credentials,
  type OperationContext,
  type PlatformAdapter,
  type PostDraft,
  type PublishResult,
  type ValidationIssue,
} from '../platform.js';
import { createShot, fileName, me, shotUrl, userShots } from './client.js';
import { dribbbleMetadata, DribbbleSettingsSchema, SHOT_SIZES } from './metadata.js';

/** What a connected Dribbble account stores (sealed by the caller). Tokens do not expire. */
export interface DribbbleCredentials {
  accessToken: string;
  userId: string;
  login: string;
}

export interface DribbbleAdapterConfig {
  app?: OAuthApp;
}

type Ctx = Pick<OperationContext, 'http' | 'clock'>;

const sizeList = SHOT_SIZES.map(([w, h]) => `${w}×${h}`).join(', ');
const acceptedSize = (w: number, h: number) => SHOT_SIZES.some(([sw, sh]) => sw === w && sh === h);

function requireApp(app: OAuthApp | undefined): OAuthApp {
  if (!app?.clientId || !app.clientSecret) throw new PlatformError('unsupported', 'Dribbble is not configured on this server: set DRIBBBLE_CLIENT_ID and DRIBBBLE_CLIENT_SECRET');
  return app;
}

const StoredDribbbleCredentials = z.object({ accessToken: storedText, userId: storedText, login: storedTextOrEmpty });
const creds = (ctx: { credentials: Credentials }): DribbbleCredentials => readCredentials(ctx, StoredDribbbleCredentials, 'Dribbble');

/** The tag labels of the settings (strings or `{ value, label }`). */
function tagLabels(tags: unknown): string[] {
  if (!Array.isArray(tags)) return [];
  return tags.map((t) => (typeof t === 'string' ? t : (t as { label?: string }).label ?? '')).map((t) => t.trim()).filter(Boolean);
}

/**
 * The shot rules the settings schema and the media rules cannot say: the picture must be exactly
 * one of the sizes Dribbble takes (400×300, 800×600, 1600×1200), reported on `value.0.image` so
 * post validation and `missing` name it.
 */
export function dribbbleIssues(post: PostDraft): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const first = post.items[0];
  const image = first?.media[0];
  if (image && image.type === 'image' && image.width && image.height && !acceptedSize(image.width, image.height)) {
    issues.push({ path: 'value.0.image', code: 'dimensions', message: `A Dribbble shot must be exactly ${sizeList} pixels; this picture is ${image.width}×${image.height}` });
  }
  return issues;
}

/**
 * Creates the Dribbble adapter: OAuth 2 (`public upload`, tokens that never expire, no refresh),
 * shots of exactly one picture with title, description, tags and team, uploaded as multipart;
 * Dribbble answers 202 with the new shot's URL in `Location` and processes the picture afterwards.
 * No threads, no analytics.
 */
export function createDribbbleAdapter(config: DribbbleAdapterConfig = {}): PlatformAdapter {
  /** The team id for the `team` setting (an id, or the team's Dribbble URL), checked against the user's teams. */
  async function teamId(ctx: Ctx, c: DribbbleCredentials, team: string | undefined): Promise<string | undefined> {
    if (!team) return undefined;
    const teams = (await me(ctx, c.accessToken)).teams ?? [];
    const norm = (u: string) => u.replace(/^http:/, 'https:').replace(/\/+$/, '').toLowerCase();
    const found = teams.find((t) => String(t.id) === team || (t.html_url && norm(t.html_url) === norm(team)));
    if (!found) throw new PlatformError('rejected', `settings.team: the Dribbble account is not a member of team ${team}`);
    return String(found.id);
  }

  return {
    metadata: dribbbleMetadata,

    async beginConnect(input) {
      const app = requireApp(config.app);
      return { url: buildAuthorizeUrl(dribbbleMetadata.oauth!, { clientId: app.clientId, redirectUri: input.redirectUri, state: input.state }) };
    },

    async completeConnect(input, ctx): Promise<ConnectedAccount> {
      const app = requireApp(config.app);
      const tokens = await exchangeCode(ctx.http, { tokenUrl: dribbbleMetadata.oauth!.tokenUrl, app, code: input.code, redirectUri: input.redirectUri, clientAuth: 'body', now: ctx.clock.now() });
      if (tokens.scope && !tokens.scope.split(/[ ,]+/).includes('upload')) {
        throw new PlatformError('rejected', 'Dribbble did not grant the upload permission: connect again and allow it');
      }
      const user = await me(ctx, tokens.accessToken);
      const credentials: DribbbleCredentials = { accessToken: tokens.accessToken, userId: String(user.id), login: user.login ?? '' };
      return { internalId: String(user.id), name: user.name || user.login || String(user.id), profile: user.login ?? null, picture: user.avatar_url ?? null, credentials: { ...credentials }, expiresAt: null };
    },

    validate: dribbbleIssues,

    /**
     * Creates a shot (`POST /v2/shots`, multipart: `image`, `title`, `description`, `tags[]`,
     * `team_id`). Dribbble answers 202 Accepted with the shot's URL in `Location`: the shot has its
     * id and address from then on, while Dribbble processes the picture. NOT idempotent: the
     * publisher reconciles with `findRecent`.
     */
    async publish({ item, settings, replyTo }, ctx): Promise<PublishResult> {
      if (replyTo) throw new PlatformError('unsupported', 'Dribbble shots have no replies an app can post');
      const c = creds(ctx);
      const { __type: _ignored, ...rest } = settings;
      const parsed = DribbbleSettingsSchema.safeParse(rest);
      if (!parsed.success) {
        const first = parsed.error.issues[0]!;
        throw new PlatformError('rejected', `settings.${first.path.map(String).join('.')}: ${first.message}`);
      }
      const s = parsed.data;
      if (item.media.length !== 1 || item.media[0]!.type !== 'image') throw new PlatformError('rejected', 'A Dribbble shot needs exactly one picture');
      const image = item.media[0]!;
      if (image.width && image.height && !acceptedSize(image.width, image.height)) {
        throw new PlatformError('rejected', `A Dribbble shot must be exactly ${sizeList} pixels; this picture is ${image.width}×${image.height}`);
      }
      const team = await teamId(ctx, c, s.team);
      const form = new FormData();
      form.set('title', s.title.trim());
      const description = htmlToText(item.content);
      if (description) form.set('description', description);
      for (const tag of tagLabels(s.tags)) form.append('tags[]', tag);
      if (team) form.set('team_id', team);
      form.set('image', await ctx.openMedia(image), fileName(image));
      const location = await createShot(ctx, c.accessToken, form);
      const id = /\/shots\/(\d+)(?:[/?#]|$)/.exec(location)?.[1];
      if (!id) throw new PlatformError('transient', `Dribbble accepted the shot without saying where it is (Location: "${location}")`, { outcomeUnknown: true });
      return { status: 'published', id, url: shotUrl(id) };
    },

    /** The account's shots since `since`, newest first (`GET /v2/user/shots`, 100 a page). Shots have no replies. */
    async findRecent({ since, limit, replyTo }, ctx) {
      if (replyTo) throw new PlatformError('unsupported', 'Dribbble shots have no replies an app can post');
      const c = creds(ctx);
      const out: { id: string; url: string; content: string; createdAt: string }[] = [];
      for (let page = 1; out.length < limit; page++) {
        const shots = await userShots(ctx, c.accessToken, page);
        if (!Array.isArray(shots) || shots.length === 0) break;
        let older = false;
        for (const shot of shots) {
          if (Date.parse(shot.published_at ?? '') < since.getTime()) {
            older = true;
            continue;
          }
          out.push({ id: String(shot.id), url: shot.html_url || shotUrl(String(shot.id)), content: htmlToText(shot.description ?? ''), createdAt: shot.published_at ?? '' });
        }
        if (older || shots.length < 100) break;
      }
      return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, limit);
    },

    async runTool(methodName, _data, ctx) {
      if (methodName !== 'teams') throw new PlatformError('unsupported', `Dribbble has no tool "${methodName}"`);
      const c = creds(ctx);
      return ((await me(ctx, c.accessToken)).teams ?? []).map((t) => ({ id: String(t.id), name: t.name || t.login || String(t.id), url: t.html_url ?? null }));
    },
  };
}
