import { startWordpressSimulator, type WordpressSimulator, type WordpressSimulatorOptions, type WpSimTerm, type WpSimUser } from './wordpress.simulator.js';

/** Shared fixtures of the WordPress unit and API tests: one site, its users and terms. */

export const SITE = 'https://blog.example.com';
/** As WordPress shows it once: groups of four separated by spaces (which it ignores). */
export const APP_PASSWORD = 'abcd EFGH 1234 ijkl MNOP 5678';

export const USERS: WpSimUser[] = [
  { id: 1, username: 'admin', email: 'admin@blog.example.com', name: 'Site Admin', role: 'administrator', appPasswords: ['zzzz yyyy xxxx wwww vvvv uuuu'] },
  { id: 7, username: 'editor', email: 'editor@blog.example.com', name: 'Eddie Editor', role: 'editor', appPasswords: [APP_PASSWORD] },
  { id: 9, username: 'contrib', email: 'contrib@blog.example.com', name: 'Connie Contributor', role: 'contributor', appPasswords: ['cccc CCCC cccc CCCC cccc CCCC'] },
];

export const NEWS = 3;
export const RELEASES = 4;
export const TAG_RUST = 12;

export function terms(extraTags = 0): WpSimTerm[] {
  const base: WpSimTerm[] = [
    { id: 1, taxonomy: 'category', name: 'Uncategorized', slug: 'uncategorized', parent: 0 },
    { id: NEWS, taxonomy: 'category', name: 'News & Events', slug: 'news', parent: 0 },
    { id: RELEASES, taxonomy: 'category', name: 'Releases', slug: 'releases', parent: NEWS },
    { id: TAG_RUST, taxonomy: 'post_tag', name: 'rust', slug: 'rust', parent: 0 },
  ];
  for (let i = 0; i < extraTags; i++) base.push({ id: 1000 + i, taxonomy: 'post_tag', name: `tag-${String(i).padStart(3, '0')}`, slug: `tag-${i}`, parent: 0 });
  return base;
}

export function wordpressSimulator(options: WordpressSimulatorOptions = {}): Promise<WordpressSimulator> {
  return startWordpressSimulator({ publicUrl: SITE, users: structuredClone(USERS), terms: terms(), ...options });
}

/** real origin → simulator origin, for `createPlatformHttp` */
export function originsFor(sim: WordpressSimulator): Map<string, string> {
  return new Map([[new URL(sim.publicUrl).origin, sim.origin]]);
}

/** `PLATFORM_ORIGINS` of the app for this simulator */
export function platformOriginsFor(sim: WordpressSimulator): string {
  return `${new URL(sim.publicUrl).origin}=${sim.origin}`;
}

export const credentialsInput = (over: Record<string, unknown> = {}) => ({ siteUrl: SITE, username: 'editor', applicationPassword: APP_PASSWORD, ...over });
