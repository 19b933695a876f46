import type { paths } from '../../api/schema.js';

export type Onboarding = paths['/onboarding']['get']['responses'][200]['content']['application/json'];
export type StepId = Onboarding['steps'][number]['id'];

export interface ChecklistItem {
  id: StepId;
  title: string;
  done: boolean;
}

const TITLES: Record<StepId, string> = {
  'connect-channel': 'Connect a channel',
  'first-post': 'Write a first post',
  'invite-teammate': 'Invite a teammate',
  'api-key': 'Create an API key',
};

/**
 * The checklist's items from `GET /onboarding`, in the API's order. `channels` is the live count
 * of GET /integrations when known: the calendar reads it anyway and it changes the moment a
 * channel is connected, before the onboarding answer is read again.
 */
export function checklistItems(onboarding: Onboarding, channels?: number): ChecklistItem[] {
  return onboarding.steps.map((s) => ({
    id: s.id,
    title: TITLES[s.id],
    done: s.id === 'connect-channel' && channels !== undefined ? channels > 0 : s.done,
  }));
}

/** Shown while something is left to do and the person has not put it away. */
export function shouldShow(items: ChecklistItem[], dismissed: boolean): boolean {
  return !dismissed && items.some((i) => !i.done);
}

/** Dismissal is remembered per person and organisation, in this browser. */
export const dismissKey = (userId: string, organizationId: string) => `tidings.onboarding.dismissed.${userId}.${organizationId}`;

export function readDismissed(key: string): boolean {
  try {
    return window.localStorage.getItem(key) === '1';
  } catch {
    return false; // storage refused (private mode): the checklist simply shows
  }
}

export function writeDismissed(key: string) {
  try {
    window.localStorage.setItem(key, '1');
  } catch {
    // nothing to remember it in: it is put away for this visit only
  }
}

/**
 * Query keys whose invalidation may change a step: a mutation anywhere in the app that
 * invalidates one of them (a channel connected, a post made, an invitation or a key created)
 * makes the checklist read `GET /onboarding` again, without those features knowing about it.
 */
export const STEP_SOURCES: readonly unknown[] = ['integrations', 'posts', 'members', 'api-keys'];
export const onboardingKey = ['onboarding'] as const;
