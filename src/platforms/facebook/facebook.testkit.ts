/**
 * The Facebook test fixtures are the shared Meta ones (`common/meta.testkit.ts`): apps, the user
 * Ada and her Pages, `withMeta`, media. The API and crash worlds are `common/meta-api.testkit.ts`
 * and `common/meta-crash.testkit.ts`.
 */
export * from '../common/meta.testkit.js';
