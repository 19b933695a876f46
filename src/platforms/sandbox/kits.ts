import type { PlatformIdentifier } from '../platform.js';
import type { SandboxKit } from './kit.js';

/**
 * Each platform's sandbox kit (`platforms/<id>/sandbox.ts`), loaded on first use: a deployment
 * that never connects a sandbox channel loads no simulator.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kit has its own simulator type
type AnyKit = SandboxKit<any>;
const load = async (m: Promise<{ default: AnyKit }>) => (await m).default;

export const SANDBOX_KITS: Partial<Record<PlatformIdentifier, () => Promise<AnyKit>>> = {
  telegram: () => load(import('../telegram/sandbox.js')),
  x: () => load(import('../x/sandbox.js')),
};
