import type { Server } from 'node:http';
import { pino } from 'pino';
import { startAdminSocket } from './admin/admin-socket.js';
import { buildAdminApp, buildApp } from './app.js';
import type { Config, Role } from './config.js';
import { createDeps } from './deps.js';

/** `tidings serve`: opens the database, starts the roles asked for, and shuts down cleanly on a signal. */
export async function serve(config: Config, role: Role) {
  const started = performance.now();
  const logger = { level: config.logLevel, redact: ['req.headers.authorization'] };
  // One logger for start-up and requests, so every line has the same shape.
  const log = pino(logger);
  if (!config.databaseUrl && role !== 'all') {
    log.warn(`--role ${role} in embedded mode: no other process can share this data folder, so the ${role === 'api' ? 'publisher' : 'API'} will not run`);
  }
  const deps = await createDeps(config, { role, logger: log });
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let adminServer: Server | undefined;
  let adminApp: Awaited<ReturnType<typeof buildAdminApp>> | undefined;
  try {
    app = await buildApp(deps, { logger: log });
    if (config.metrics.port !== undefined) {
      // The admin port (metrics without a token, this process's /readyz), in every role.
      adminApp = await buildAdminApp(deps, { logger: log });
      await adminApp.listen({ port: config.metrics.port, host: config.metrics.host });
    }
    if (role !== 'api') await deps.startWorker();
    if (!config.databaseUrl) {
      adminServer = await startAdminSocket(config.dataDir, deps.services, (err) => log.error({ err }, 'admin command failed'));
    }
    if (role !== 'worker') await app.listen({ port: config.port, host: config.host });
    else await app.ready();
  } catch (e) {
    adminServer?.close();
    await adminApp?.close();
    await app?.close();
    await deps.close();
    throw e;
  }
  log.info(
    { role, mode: deps.database.kind, publicUrl: config.publicUrl, readyMs: Math.round(performance.now() - started), ...(adminApp ? { adminUrl: `http://${config.metrics.host}:${config.metrics.port}` } : {}) },
    role === 'worker' ? 'Tidings worker running' : `Tidings listening on http://${config.host}:${config.port}`,
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    void (async () => {
      adminServer?.close();
      await app?.close();
      await app?.inflight.drained(10_000);
      await adminApp?.close();
      await deps.close();
      process.exit(0);
    })();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
