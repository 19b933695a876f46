import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// Each component test renders into a fresh document.
afterEach(() => cleanup());
