import { useEffect, useRef } from 'react';
import type { PlatformIdentifier } from '../../api/queries.js';
import { GENERATED_ACCOUNT_TOOLS } from '../../generated/platforms.js';

/**
 * The connection flow's pieces that are not screens: the message the OAuth callback page sends
 * back (src/modules/integrations/callback.routes.ts), the popup, and what the API does not say
 * in advance about a platform.
 */

export type ConnectMessage =
  | { type: 'tidings:connected'; identifier: string; integration: { id: string; name: string; profile: string | null; identifier: string } }
  | { type: 'tidings:connect-failed'; identifier: string; code: string; message: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A message from the callback page (anything else posted to the window is not ours). */
export function isConnectMessage(data: unknown): data is ConnectMessage {
  if (!isRecord(data) || typeof data.identifier !== 'string') return false;
  if (data.type === 'tidings:connected') {
    const i = data.integration;
    return isRecord(i) && typeof i.id === 'string' && typeof i.name === 'string';
  }
  return data.type === 'tidings:connect-failed' && typeof data.message === 'string';
}

/**
 * Calls `onMessage` for each message of the callback page: posted to this window by a popup of
 * the same origin, or broadcast to the app's tabs (when the platform's pages cut the popup off
 * from its opener).
 */
export function useConnectMessages(onMessage: (m: ConnectMessage) => void) {
  const handler = useRef(onMessage);
  useEffect(() => {
    handler.current = onMessage;
  });
  useEffect(() => {
    const onWindowMessage = (e: MessageEvent) => {
      if (e.origin !== window.location.origin || !isConnectMessage(e.data)) return;
      handler.current(e.data);
    };
    window.addEventListener('message', onWindowMessage);
    let channel: BroadcastChannel | undefined;
    if (typeof BroadcastChannel !== 'undefined') {
      channel = new BroadcastChannel('tidings-connect');
      channel.onmessage = (e: MessageEvent) => {
        if (isConnectMessage(e.data)) handler.current(e.data);
      };
    }
    return () => {
      window.removeEventListener('message', onWindowMessage);
      channel?.close();
    };
  }, []);
}

/** Opens the platform's authorisation page in a popup; null when the browser blocked it. */
export function openConnectWindow(url: string): Window | null {
  const width = 620;
  const height = 720;
  const left = Math.max(0, Math.round(window.screenX + (window.outerWidth - width) / 2));
  const top = Math.max(0, Math.round(window.screenY + (window.outerHeight - height) / 2));
  return window.open(url, 'tidings-connect', `popup=yes,width=${width},height=${height},left=${left},top=${top}`);
}

/**
 * OAuth platforms whose channel lives on a server the person names (API.md §5: `instanceUrl`).
 * Credential platforms on an instance (lemmy, wordpress, listmonk) ask for it in their own form.
 */
export const INSTANCE_OAUTH: ReadonlySet<string> = new Set<PlatformIdentifier>(['mastodon']);

/** `@alice@mastodon.social` → `https://mastodon.social` (a reconnect's suggestion). */
export function instanceFromProfile(profile: string | null): string {
  const m = /^@?[^@\s]+@([^@\s/]+)$/.exec(profile ?? '');
  return m ? `https://${m[1]}` : '';
}

/**
 * Platforms where one connection reaches several accounts and the channel posts as one of them
 * (PUT /integrations/{id}/account); the list comes from the platform tool named here
 * (POST /integration-trigger/{id}, see GET /integration-settings/{id} `tools`): the tools whose
 * metadata says `account`, written out by `npm run platforms:web`.
 */
export const ACCOUNT_TOOLS: Partial<Record<PlatformIdentifier, { methodName: string; noun: string }>> = GENERATED_ACCOUNT_TOOLS;

/** One account a tool lists (the platforms name their fields a little differently). */
export interface AccountChoice {
  id: string;
  name: string;
  detail: string | null;
  picture: string | null;
  current: boolean;
}

/** The tool's output as choices; entries without an id are left out. */
export function accountChoices(output: unknown): AccountChoice[] {
  if (!Array.isArray(output)) return [];
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return output.filter(isRecord).flatMap((a) => {
    const id = str(a.id) ?? (typeof a.id === 'number' ? String(a.id) : null);
    if (!id) return [];
    const handle = str(a.username) ?? str(a.handle) ?? str(a.vanityName);
    const page = isRecord(a.page) ? str(a.page.name) : null;
    return [
      {
        id,
        name: str(a.name) ?? handle ?? id,
        detail: [handle && handle !== str(a.name) ? (handle.startsWith('@') ? handle : `@${handle}`) : null, page ? `Page: ${page}` : null].filter(Boolean).join(' · ') || null,
        picture: str(a.picture),
        current: a.current === true,
      },
    ];
  });
}
