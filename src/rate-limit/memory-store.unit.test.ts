import { describe } from 'vitest';
import { createMemoryStore } from './memory-store.js';
import { slidingLogContract } from './store.contract.js';

describe('memory sliding log', () => {
  slidingLogContract(() => Promise.resolve({ store: createMemoryStore(), close: () => Promise.resolve() }));
});
