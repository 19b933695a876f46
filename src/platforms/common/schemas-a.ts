import { z } from 'zod';

/**
 * Small shared pieces for the platform metadata of devto … mewe. Kept apart from `schemas.ts`
 * so that folders edited in parallel do not collide.
 */

/** A required http(s) URL: "Required" when missing, a URL message when malformed. */
export const requiredHttpUrl = (message = 'Must be an http(s) URL') =>
  z.url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'Required' : message) });

/** A required secret (password, token, API key): never trimmed, since spaces may be part of it. */
export const requiredSecret = () => z.string({ error: 'Required' }).min(1, 'Required');

/** Tools that take no input (`data` is `{}` or absent). */
export const NoToolData = z.object({});
