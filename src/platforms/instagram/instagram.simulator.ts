/**
 * The Instagram (Facebook Login) simulator is the shared Meta one (`common/meta.simulator.ts`):
 * the Instagram API with Facebook Login answers on graph.facebook.com, next to the Pages it goes
 * through. Containers pull their media through the simulator's `mediaOrigins`.
 */
export {
  FACEBOOK_GRAPH_ORIGIN,
  FACEBOOK_ORIGINS,
  FACEBOOK_WWW_ORIGIN,
  startMetaSimulator as startInstagramSimulator,
  type MetaSimulator as InstagramSimulator,
  type MetaSimulatorOptions as InstagramSimulatorOptions,
} from '../common/meta.simulator.js';
