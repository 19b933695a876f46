// The simulators' common part lives with them in src/platforms/ (the sandbox runs them in production).
export * from '../../src/platforms/simulator.js';
