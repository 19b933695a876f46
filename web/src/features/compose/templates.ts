import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import { emptyItem, type AttachedMedia, type ComposeItem, type ComposeState } from './model.js';

/**
 * Post templates and signatures in the web app: the lists (shared by Settings and the composer),
 * placeholders, and the signature rule the API uses (`appendSignature` mirrors the service's).
 */
export type PostTemplate = components['schemas']['PostTemplate'];
export type Signature = components['schemas']['Signature'];
export type TemplateBody = PostTemplate['body'];

export const templateKeys = {
  templates: ['templates'] as const,
  signatures: ['signatures'] as const,
};

export function useTemplates() {
  return useQuery({ queryKey: templateKeys.templates, queryFn: () => unwrap(api.GET('/templates')) });
}

export function useSignatures() {
  return useQuery({ queryKey: templateKeys.signatures, queryFn: () => unwrap(api.GET('/signatures')) });
}

const PLACEHOLDER = /\{\{([A-Za-z0-9_]+)\}\}/g;

/** The placeholder names in `texts`, in order of first appearance. */
export function placeholdersIn(texts: string[]): string[] {
  const out: string[] = [];
  for (const t of texts) for (const m of t.matchAll(PLACEHOLDER)) if (!out.includes(m[1]!)) out.push(m[1]!);
  return out;
}

export function fillPlaceholders(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, n: string) => values[n] ?? whole);
}

/** `content` with the signature at its end after a blank line; unchanged if it already ends with it. */
export function appendSignature(content: string, signature: string): string {
  const text = content.trimEnd();
  const sig = signature.trim();
  if (sig === '' || text.endsWith(sig)) return content;
  return text === '' ? sig : `${text}\n\n${sig}`;
}

/** The auto-add signature that applies to a channel (the API keeps at most one per channel). */
export function autoSignatureFor(list: Signature[], channelId: string): Signature | undefined {
  return list.find((s) => s.autoAdd && (s.integrationIds.length === 0 || s.integrationIds.includes(channelId)));
}

const VIDEO = /\.(mp4|mov|m4v|webm)(\?|$)/i;

/** The template's entry used in the composer's shared text: the one for no channel, else the first. */
export function sharedEntry(body: TemplateBody) {
  return body.posts.find((p) => !p.integration) ?? body.posts[0]!;
}

/** The composer items of a template entry with the placeholders filled. */
export function itemsFromTemplate(entry: TemplateBody['posts'][number], values: Record<string, string>): ComposeItem[] {
  return entry.value.map((v) => ({
    ...emptyItem(),
    text: fillPlaceholders(v.content, values),
    media: (v.image ?? []).map((m): AttachedMedia => ({ id: m.id, path: m.path, type: VIDEO.test(m.path) ? 'video' : 'image', thumbnail: null, alt: '' })),
  }));
}

/** A template body from the composer: the shared text (no channel) and each channel's own text. */
export function templateBodyFromState(state: ComposeState): TemplateBody {
  const entry = (items: ComposeItem[]) => ({ value: items.map((i) => ({ content: i.text, image: i.media.map((m) => ({ id: m.id, path: m.path })) })) });
  const own = state.channels.filter((id) => state.perChannel[id]?.custom).map((id) => ({ integration: { id }, ...entry(state.perChannel[id]!.items) }));
  return { posts: [entry(state.shared), ...own] };
}

/**
 * A new post's state with each chosen channel's auto-add signature at the end of its first item:
 * a channel given a signature gets its own text (the shared text plus the signature) so channels
 * with different signatures, or none, keep theirs. Never doubled (`appendSignature`).
 */
export function withAutoSignatures(state: ComposeState, signatures: Signature[]): ComposeState {
  if (state.edit) return state;
  const perChannel = { ...state.perChannel };
  for (const id of state.channels) {
    const sig = autoSignatureFor(signatures, id);
    if (!sig) continue;
    const own = perChannel[id];
    const items = own?.custom ? own.items : state.shared;
    if (items.length === 0) continue;
    const [first, ...rest] = items;
    perChannel[id] = { ...own, custom: true, items: [{ ...first!, text: appendSignature(first!.text, sig.content) }, ...rest] };
  }
  return { ...state, perChannel };
}
