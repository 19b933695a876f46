import { describe, expect, it } from 'vitest';
import { platformEnvPrefix } from '../config.js';
import { PLATFORM_IDENTIFIERS } from './platform.js';
import { createPlatformRegistry } from './registry.js';

/**
 * `deploymentApp` is what the connect picker tells an administrator: every platform whose OAuth app
 * belongs to the deployment must have it, naming the variables the adapter really reads.
 */
describe('deploymentApp metadata', () => {
  const registry = createPlatformRegistry({ apps: {} });

  it.each(PLATFORM_IDENTIFIERS)('%s', (id) => {
    const m = registry[id].metadata;
    if (m.authKind === 'oauth2') {
      const prefix = platformEnvPrefix(id);
      expect(m.deploymentApp?.variables.slice(0, 2)).toEqual([`${prefix}_CLIENT_ID`, `${prefix}_CLIENT_SECRET`]);
      expect(m.deploymentApp?.app.length).toBeGreaterThan(5);
      if (m.deploymentApp?.consoleUrl) expect(new URL(m.deploymentApp.consoleUrl).protocol).toBe('https:');
    } else {
      // credential forms and per-instance apps register nothing on the deployment's behalf
      expect(m.deploymentApp).toBeUndefined();
    }
  });
});
