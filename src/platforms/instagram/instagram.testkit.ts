/**
 * The Instagram test fixtures are the shared Meta ones (`common/meta.testkit.ts`), with `image`
 * a JPEG picture: Instagram publishes JPEG only. The API and crash worlds are
 * `common/meta-api.testkit.ts` and `common/meta-crash.testkit.ts`.
 */
export * from '../common/meta.testkit.js';
export { jpegImage as image } from '../common/meta.testkit.js';
