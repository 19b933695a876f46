/**
 * The Instagram Login simulator is the shared Meta one (`common/meta.simulator.ts`), which also
 * answers for www.instagram.com (authorisation), api.instagram.com (code exchange) and
 * graph.instagram.com (long-lived tokens, `ig_refresh_token`, and the same containers as the
 * Facebook Login flavour). Containers pull their media through its `mediaOrigins`.
 */
export {
  INSTAGRAM_API_ORIGIN,
  INSTAGRAM_GRAPH_ORIGIN,
  INSTAGRAM_LOGIN_ORIGINS,
  INSTAGRAM_WWW_ORIGIN,
  startMetaSimulator as startInstagramStandaloneSimulator,
  type MetaSimulator as InstagramStandaloneSimulator,
  type MetaSimulatorOptions as InstagramStandaloneSimulatorOptions,
} from '../common/meta.simulator.js';
