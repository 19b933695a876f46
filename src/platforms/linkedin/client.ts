/** LinkedIn's client is shared with `linkedin-page` (members and the pages they administer share one API): `common/linkedin-client.ts`. */
export * from '../common/linkedin-client.js';
