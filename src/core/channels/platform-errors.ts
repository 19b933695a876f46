import { AppError } from '../../errors.js';
import { PlatformError } from '../../platforms/platform.js';

/** How a platform failure during an API request (tools, analytics) is answered to the caller. */
export function platformErrorToAppError(e: unknown, platform: string): unknown {
  if (!(e instanceof PlatformError)) return e;
  switch (e.kind) {
    case 'reconnect_required':
    case 'auth_expired':
      return new AppError('CHANNEL_NEEDS_RECONNECT', `${platform}: ${e.message}`);
    case 'rate_limited':
      return new AppError('PLATFORM_RATE_LIMITED', `${platform} asks to slow down: ${e.message}`, {
        headers: { 'retry-after': String(Math.max(1, e.details.retryAfterSeconds ?? 60)) },
      });
    case 'transient':
      return new AppError('PLATFORM_UNREACHABLE', `${platform} could not be reached: ${e.message}`);
    case 'unsupported':
      return new AppError('PLATFORM_NOT_AVAILABLE', `${platform}: ${e.message}`);
    case 'rejected':
      return new AppError('PLATFORM_REJECTED', `${platform} refused: ${e.message}`);
  }
}
