import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearDraft, draftKey, hasChanges, loadDraft, sameSettings, saveDraft, snapshot } from './drafts.js';
import { emptyItem, emptyState, type ComposeState } from './model.js';

const when = { date: '2026-07-01', time: '09:00' };
const photo = { id: 'm1', path: '/media/o1/poster.jpg', type: 'image' as const, mimeType: 'image/jpeg', thumbnail: null, alt: 'The poster', name: 'poster.jpg' };

function written(): ComposeState {
  const s = emptyState(['tg', 'sky']);
  return {
    ...s,
    shared: [{ ...s.shared[0]!, text: 'Launch day', media: [photo] }, { ...emptyItem(15), text: 'Questions? Reply here.' }],
    perChannel: { sky: { custom: true, items: [{ ...emptyItem(), text: 'Short for Bluesky' }], settings: { lang: 'en' } } },
  };
}

afterEach(() => localStorage.clear());

describe('what counts as a change', () => {
  it('an untouched composer has none; item keys (new on every render path) are not content', () => {
    const s = emptyState(['tg']);
    const base = snapshot(s, when);
    expect(hasChanges(base, s, when)).toBe(false);
    expect(hasChanges(base, { ...s, shared: [{ ...s.shared[0]!, key: 'another-key' }] }, when)).toBe(false);
    // typed and erased again: nothing to lose
    expect(hasChanges(base, { ...s, shared: [{ ...s.shared[0]!, text: '' }] }, when)).toBe(false);
  });

  it('text, media, alt text, thread items, channels, own text, settings and the date each count', () => {
    const s = emptyState(['tg']);
    const base = snapshot(s, when);
    const item = s.shared[0]!;
    expect(hasChanges(base, { ...s, shared: [{ ...item, text: 'x' }] }, when)).toBe(true);
    expect(hasChanges(base, { ...s, shared: [{ ...item, media: [photo] }] }, when)).toBe(true);
    expect(hasChanges(snapshot({ ...s, shared: [{ ...item, media: [photo] }] }, when), { ...s, shared: [{ ...item, media: [{ ...photo, alt: 'changed' }] }] }, when)).toBe(true);
    expect(hasChanges(base, { ...s, shared: [item, emptyItem()] }, when)).toBe(true);
    expect(hasChanges(base, { ...s, channels: ['tg', 'sky'] }, when)).toBe(true);
    expect(hasChanges(base, { ...s, channels: [] }, when)).toBe(true);
    expect(hasChanges(base, { ...s, perChannel: { tg: { custom: true, items: [emptyItem()] } } }, when)).toBe(true);
    expect(hasChanges(base, { ...s, perChannel: { tg: { custom: false, items: [], settings: { silent: true } } } }, when)).toBe(true);
    expect(hasChanges(base, s, { ...when, date: '2026-07-02' })).toBe(true);
    expect(hasChanges(base, s, { ...when, time: '09:30' })).toBe(true);
    expect(hasChanges(base, { ...s, shortLink: true }, when)).toBe(true);
    expect(hasChanges(base, { ...s, shortLink: false }, when)).toBe(false);
    expect(hasChanges(base, { ...s, perChannel: { tg: { custom: false, items: [], shortLink: true } } }, when)).toBe(true);
  });

  it('what belongs to no selected channel is no change; settings compare by value, not key order', () => {
    const s = emptyState(['tg']);
    const base = snapshot(s, when);
    expect(hasChanges(base, { ...s, perChannel: { gone: { custom: true, items: [{ ...emptyItem(), text: 'left behind' }] } } }, when)).toBe(false);
    expect(sameSettings({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
    expect(sameSettings({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameSettings({ a: 1 }, { a: 2 })).toBe(false);
  });
});

describe('the draft store', () => {
  const key = draftKey('u1', 'o1', { kind: 'new' });

  it('keys drafts by person, organisation and post', () => {
    const keys = [
      key,
      draftKey('u1', 'o2', { kind: 'new' }),
      draftKey('u2', 'o1', { kind: 'new' }),
      draftKey('u1', 'o1', { kind: 'edit', group: 'g1' }),
      draftKey('u1', 'o1', { kind: 'edit', group: 'g2' }),
      draftKey('u1', 'o1', { kind: 'duplicate', postId: 'g1' }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives back what was saved: texts, thread items, media by id with their alt text, own texts, settings, the date fields', () => {
    const s = written();
    expect(saveDraft(key, s, when, new Date('2026-06-30T10:00:00Z'))).toBe(true);
    expect(loadDraft(draftKey('u1', 'o2', { kind: 'new' }))).toBeUndefined();
    const d = loadDraft(key)!;
    expect(d.savedAt).toBe('2026-06-30T10:00:00.000Z');
    expect(d.when).toEqual(when);
    expect(d.state.channels).toEqual(['tg', 'sky']);
    expect(d.state.shared.map(({ text, media, delay }) => ({ text, media, delay }))).toEqual([
      { text: 'Launch day', media: [photo], delay: 0 },
      { text: 'Questions? Reply here.', media: [], delay: 15 },
    ]);
    expect(d.state.perChannel.sky).toMatchObject({ custom: true, items: [{ text: 'Short for Bluesky' }], settings: { lang: 'en' } });
    // items get keys of their own (the editors are keyed by them) and the content is unchanged
    expect(new Set(d.state.shared.map((i) => i.key)).size).toBe(2);
    expect(hasChanges(snapshot(s, when), { ...d.state }, d.when)).toBe(false);
    // what is kept is the content only: nothing of an edit's stored rows
    expect(JSON.parse(localStorage.getItem(key)!)).not.toHaveProperty('edit');
  });

  it('keeps the “Shorten links” switch', () => {
    const w = written();
    saveDraft(key, { ...w, shortLink: true, perChannel: { ...w.perChannel, tg: { custom: false, items: [], shortLink: false } } }, when);
    expect(loadDraft(key)!.state.shortLink).toBe(true);
    expect(loadDraft(key)!.state.perChannel.tg!.shortLink).toBe(false);
    expect(loadDraft(key)!.state.perChannel.sky).not.toHaveProperty('shortLink');
    saveDraft(key, written(), when);
    expect(loadDraft(key)!.state).not.toHaveProperty('shortLink');
  });

  it('clears', () => {
    saveDraft(key, written(), when);
    clearDraft(key);
    expect(localStorage.getItem(key)).toBeNull();
    expect(loadDraft(key)).toBeUndefined();
  });

  it.each([
    ['not JSON', '{"version":1,'],
    ['JSON of another kind', '"hello"'],
    ['an older version', JSON.stringify({ version: 0, text: 'Launch day' })],
    ['a media item without its id', JSON.stringify({ version: 1, savedAt: '2026-06-30T10:00:00.000Z', channels: ['tg'], shared: [{ text: 'x', media: [{ path: '/m', type: 'image', thumbnail: null, alt: '' }], delay: 0 }], perChannel: {}, when })],
    ['a negative delay', JSON.stringify({ version: 1, savedAt: '2026-06-30T10:00:00.000Z', channels: ['tg'], shared: [{ text: 'x', media: [], delay: -5 }], perChannel: {}, when })],
    ['no items at all', JSON.stringify({ version: 1, savedAt: '2026-06-30T10:00:00.000Z', channels: ['tg'], shared: [], perChannel: {}, when })],
    ['a text that is not a string', JSON.stringify({ version: 1, savedAt: '2026-06-30T10:00:00.000Z', channels: ['tg'], shared: [{ text: 42, media: [], delay: 0 }], perChannel: {}, when })],
  ])('ignores and removes what does not parse: %s', (_what, raw) => {
    localStorage.setItem(key, raw);
    expect(loadDraft(key)).toBeUndefined();
    expect(localStorage.getItem(key)).toBeNull();
  });

  it('a browser that will not store (quota, privacy mode) loses the draft, not the composer', () => {
    const full = {
      getItem: () => null,
      removeItem: () => undefined,
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    };
    vi.stubGlobal('localStorage', full);
    try {
      expect(saveDraft(key, written(), when)).toBe(false);
      expect(loadDraft(key)).toBeUndefined();
      // storage refused altogether: reading the property throws
      vi.stubGlobal('localStorage', undefined);
      Object.defineProperty(globalThis, 'localStorage', {
        configurable: true,
        get: () => {
          throw new DOMException('denied', 'SecurityError');
        },
      });
      expect(saveDraft(key, written(), when)).toBe(false);
      expect(loadDraft(key)).toBeUndefined();
      expect(() => clearDraft(key)).not.toThrow();
    } finally {
      vi.unstubAllGlobals();
    }
    expect(loadDraft(key)).toBeUndefined();
  });
});
