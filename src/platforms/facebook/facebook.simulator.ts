/**
 * The Facebook simulator is the shared Meta one (`common/meta.simulator.ts`): Facebook Pages and
 * Instagram through Facebook Login answer on the same origins, and the tests of both use it.
 */
export {
  FACEBOOK_GRAPH_ORIGIN,
  FACEBOOK_GRAPH_VIDEO_ORIGIN,
  FACEBOOK_ORIGINS,
  FACEBOOK_RUPLOAD_ORIGIN,
  FACEBOOK_WWW_ORIGIN,
  startMetaSimulator as startFacebookSimulator,
  type MetaSimulator as FacebookSimulator,
  type MetaSimulatorOptions as FacebookSimulatorOptions,
} from '../common/meta.simulator.js';
