import type { PlatformIdentifier } from '../api/queries.js';
import { GENERATED_PLATFORM_NAMES } from '../generated/platforms.js';

/**
 * How each platform is named in the app (identifiers are the API's), written out from the
 * platforms' metadata (`npm run platforms:web`); the type makes a platform the API knows but the
 * list lacks a compile error.
 */
export const PLATFORM_NAMES: Record<PlatformIdentifier, string> = GENERATED_PLATFORM_NAMES;

export function platformName(identifier: string): string {
  return (PLATFORM_NAMES as Record<string, string>)[identifier] ?? identifier;
}
