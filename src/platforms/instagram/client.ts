/**
 * The Instagram (Facebook Login) client. Publishing, listing and insights are shared with
 * `instagram-standalone` (both logins reach the same content-publishing API):
 * `common/instagram-publishing.ts`. Here the request only this login makes: the licensed audio
 * search (Meta keeps licensed audio to Facebook Login).
 */
import { FACEBOOK_GRAPH, graphClient } from '../common/meta-client.js';
import type { OperationContext } from '../platform.js';
import { instagramError } from './errors.js';

export * from '../common/instagram-publishing.js';

interface AudioAnswer {
  data?: { audio_id: string; audio_type?: string; title?: string; display_artist?: string; ig_username?: string; duration_in_ms?: number; cover_artwork_thumbnail_url?: string; profile_picture_url?: string }[];
}

/** Music (or original sounds) an account may put on a reel, found by `q` (all when blank). */
export async function searchAudio(ctx: Pick<OperationContext, 'http' | 'clock'>, account: { pageToken: string; igUserId: string }, q: string, type: string) {
  const res = await graphClient(ctx, { origin: FACEBOOK_GRAPH, token: account.pageToken, classify: instagramError }).get<AudioAnswer>('ig_audio', {
    audio_type: type === 'original_sound' ? 'original_sound' : 'music',
    user_id: account.igUserId,
    ...(q.trim() ? { search_query: q.trim() } : {}),
  });
  return (res.data ?? []).map((a) => ({
    id: a.audio_id,
    type: a.audio_type ?? null,
    title: a.title ?? null,
    artist: a.display_artist ?? a.ig_username ?? null,
    image: a.cover_artwork_thumbnail_url ?? a.profile_picture_url ?? null,
    durationMs: a.duration_in_ms ?? null,
  }));
}
