import type { MediaRules } from '../platform.js';
import { IMAGE_TYPES } from './schemas.js';

/** Media rules of a platform that takes pictures only, up to `max` on the first item and none on thread items. */
export const imagesOnly = (max: number): MediaRules => ({
  minItems: 0,
  maxItems: max,
  image: { maxCount: max, mimeTypes: IMAGE_TYPES },
  mixed: false,
  onThreadItems: false,
});
