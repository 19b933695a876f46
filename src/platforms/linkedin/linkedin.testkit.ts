/** The LinkedIn test fixtures are shared with `linkedin-page` (`common/linkedin.testkit.ts`). */
export * from '../common/linkedin.testkit.js';
