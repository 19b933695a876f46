/** LinkedIn Page's error mapping is LinkedIn's, shared with `linkedin`: `common/linkedin-errors.ts`. */
export * from '../common/linkedin-errors.js';
