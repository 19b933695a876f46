/**
 * The Instagram Login test fixtures are the shared Meta ones (`common/meta.testkit.ts`, whose
 * simulator also answers Instagram Login), with `image` a JPEG picture: Instagram publishes JPEG
 * only. The API world is `common/meta-api.testkit.ts`.
 */
export * from '../common/meta.testkit.js';
export { jpegImage as image } from '../common/meta.testkit.js';
