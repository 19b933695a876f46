import type { PlatformAdapter } from '../platform.js';
import { contractMediaServer, metaSimulator, originsFor, rewriteFor, withPictureForText, type MediaServer } from './meta.testkit.js';
import { contractMediaOrigins, oauthConnector, runSimulatorContract } from './unit.testkit.js';

/**
 * The shared contract for an Instagram adapter (through Facebook Login or Instagram Login) against
 * the Meta simulator: text posts get a picture (`withPictureForText`: Instagram has no text-only
 * posts), and the simulator pulls the contract's media from a media server, as Instagram fetches
 * it from its public URL. Where the adapter refreshes, the contract expires the token in the
 * simulator (Meta reports it expired, 190/463, while its refresh window is still open).
 */
export function runInstagramContract(name: string, adapter: PlatformAdapter) {
  runSimulatorContract({
    name,
    adapter: withPictureForText(adapter),
    errorsIn200: false,
    host: contractMediaServer,
    start: (server: MediaServer) => metaSimulator({ mediaOrigins: contractMediaOrigins(server) }),
    origins: originsFor,
    connect: oauthConnector(adapter, rewriteFor),
  });
}
