/**
 * The LinkedIn simulator is the shared one (`common/linkedin.simulator.ts`): members (`linkedin`) and
 * the organizations they administer (`linkedin-page`) answer on the same api.linkedin.com.
 */
export * from '../common/linkedin.simulator.js';
