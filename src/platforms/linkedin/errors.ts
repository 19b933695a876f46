/** LinkedIn's error mapping is shared with `linkedin-page`: `common/linkedin-errors.ts`. */
export * from '../common/linkedin-errors.js';
