/**
 * The LinkedIn Page simulator is the shared LinkedIn one (`common/linkedin.simulator.ts`): the
 * organizations a member administers answer on the same api.linkedin.com as the member.
 */
export * from '../common/linkedin.simulator.js';
