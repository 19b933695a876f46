/** Instagram's error mapping is shared with `instagram-standalone` (both logins answer the same shape): `common/instagram-errors.ts`. */
export * from '../common/instagram-errors.js';
