import { z } from 'zod';

/**
 * zod 4 probes for `eval` support (`new Function('')`) when it builds its first object schema,
 * to compile fast parsers. The app's CSP has no `'unsafe-eval'`, so the probe is refused and the
 * browser reports a CSP violation on every page that builds one (the composer does). Switched off
 * here, in a module `main.tsx` imports first, so it runs before any module builds a schema.
 */
z.config({ jitless: true });
