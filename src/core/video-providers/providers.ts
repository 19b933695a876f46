import type { Config } from '../../config.js';
import { createLocalSlidesProvider } from './local/index.js';
import type { VideoProvider } from './provider.js';
import { createVeo3Provider } from './veo3/index.js';

/**
 * The video providers this deployment offers, by identifier: the built-in slides encoder unless
 * `VIDEO_LOCAL_PROVIDER=off`, and each outside provider whose key is configured.
 */
export function createVideoProviders(config: Config['video']): Map<string, VideoProvider> {
  const list: VideoProvider[] = [];
  if (config.localProvider) list.push(createLocalSlidesProvider({ threads: config.ffmpegThreads || undefined }));
  if (config.kieApiKey) list.push(createVeo3Provider({ apiKey: config.kieApiKey, pollIntervalMs: config.remotePollMs }));
  return new Map(list.map((p) => [p.metadata.identifier, p]));
}
