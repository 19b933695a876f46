/** The LinkedIn Page test fixtures are shared with `linkedin` (`common/linkedin.testkit.ts`): one simulator whose member administers two pages. */
export * from '../common/linkedin.testkit.js';
