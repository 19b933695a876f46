import { X_APP } from '../../../test/oauth-apps.js';
import { simulatorOrigins } from '../common/platform.testkit.js';
import { X_API } from './client.js';
import { startXSimulator, type XSimulator, type XSimulatorOptions } from './x.simulator.js';

/** Shared fixtures of the X tests: the deployment's app, one account, a simulator that knows both. */

export { X_APP };
export const USER = { id: '1460000000000000001', name: 'Acme Inc.', username: 'acme', profile_image_url: 'https://pbs.twimg.com/profile_images/1/acme.jpg', followers: 1200, following: 80 };

/** X answers the API on api.x.com and the authorisation page on x.com. */
export const X_WWW = 'https://x.com';

export async function xSimulator(options?: XSimulatorOptions): Promise<XSimulator> {
  const sim = await startXSimulator(options);
  sim.addClient(X_APP);
  sim.addUser(USER);
  return sim;
}

export const { originsFor, platformOriginsFor } = simulatorOrigins([X_API, X_WWW]);
