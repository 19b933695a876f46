import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// Each component test renders into a fresh document.
afterEach(() => cleanup());

// `findBy…`/`waitFor` wait for what a test expects to appear. Testing Library's 1 s default is
// short when CI runs two test files per core: waiting longer changes no verdict, only how long a
// real failure takes to say so.
configure({ asyncUtilTimeout: 5000 });
