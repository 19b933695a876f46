import { z } from 'zod';

/** `data` of a tool that takes no input (lists boards, channels, companies…). */
export const NoToolDataSchema = z.object({});

/** `data` of a search tool that looks up a keyword (`{ word }`). */
export const WordSearchDataSchema = z.object({ word: z.string() });

/** `data` of a tool scoped to a parent object by its id (`{ id }`). */
export const IdToolDataSchema = z.object({ id: z.string().min(1) });

/** An http(s) URL. */
export const HttpUrl = z.url({ protocol: /^https?$/ });

/** A secret typed or pasted by the user: required, surrounding whitespace removed. */
export const requiredSecret = (description: string) =>
  z.string({ error: 'Required' }).trim().min(1, 'Required').describe(description);
