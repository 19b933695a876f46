import { AppError } from '../../errors.js';
import { isConnectable } from '../../platforms/registry.js';
import { isPlatformIdentifier, PLATFORM_IDENTIFIERS, type PlatformAdapter, type PlatformIdentifier, type PlatformMetadata } from '../../platforms/platform.js';
import { describeSettings } from './integration-settings.js';
import type { PlatformReadiness } from './platforms.schemas.js';

export interface PlatformsDeps {
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  /** names of the platform variables that hold a value (`config.ts` `setPlatformVariables`): never their values */
  setVariables: ReadonlySet<string>;
  publicUrl: string;
  /** where the docs folder is published, if it is (`DOCS_URL`) */
  docsUrl: string | undefined;
  /** whether a sandbox channel of the platform can be connected here (false everywhere with SANDBOX=off) */
  sandbox(identifier: PlatformIdentifier): boolean;
}

/** The file and anchor of a platform's setup steps (docs/platforms.md, "Registering the deployment's apps"). */
const docsPath = (identifier: string) => `docs/platforms.md#app-${identifier}`;

/** The variables of a platform's deployment app that are not set (none for platforms without one). */
export function missingVariables(m: PlatformMetadata, setVariables: ReadonlySet<string>): string[] {
  return (m.deploymentApp?.variables ?? []).filter((name) => !setVariables.has(name));
}

/**
 * Which platforms this deployment can connect (`GET /platforms`): a platform is ready when it can
 * be connected in this version and its deployment app's variables are all set, or it needs none.
 * For one that needs an app, what an administrator registers at the platform: the callback URL
 * (the one `GET /social/{identifier}` sends, built from PUBLIC_URL), the variables (names only,
 * and which are missing), the developer console and the docs. Nothing here depends on the
 * organisation: it is the deployment's state.
 */
export function createPlatformsService(deps: PlatformsDeps) {
  const rules = new Map<PlatformIdentifier, ReturnType<typeof describeRules>>();
  const callbackUrl = (identifier: string) => `${deps.publicUrl}/integrations/social/${identifier}/callback`;

  function describe(adapter: PlatformAdapter): PlatformReadiness {
    const m = adapter.metadata;
    const connectable = isConnectable(adapter);
    const missing = missingVariables(m, deps.setVariables);
    const app = m.deploymentApp;
    return {
      identifier: m.identifier,
      name: m.displayName,
      authKind: m.authKind,
      instanceBased: m.instanceBased,
      ready: connectable && missing.length === 0,
      available: connectable,
      sandbox: deps.sandbox(m.identifier),
      setup: app
        ? {
            app: app.app,
            variables: app.variables.map((name) => ({ name, set: deps.setVariables.has(name) })),
            missing,
            callbackUrl: callbackUrl(m.identifier),
            consoleUrl: app.consoleUrl,
            docsPath: docsPath(m.identifier),
            docsUrl: deps.docsUrl ? `${deps.docsUrl}/${docsPath(m.identifier).slice('docs/'.length)}` : null,
          }
        : null,
    };
  }

  function describeRules(m: PlatformMetadata) {
    // the fields a post's settings must give: what an empty settings object is refused for
    const empty = m.settings?.safeParse({});
    const requiredSettings = empty && !empty.success ? empty.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })) : [];
    return { identifier: m.identifier, name: m.displayName, ...describeSettings(m), requiredSettings };
  }

  return {
    /** Every platform, in identifier order (the app sorts for people). */
    listPlatforms(): PlatformReadiness[] {
      return PLATFORM_IDENTIFIERS.map((id) => describe(deps.adapters[id]));
    },

    /**
     * A platform's posting rules with no channel (the MCP resource `tidings://platforms/{identifier}/rules`):
     * what `GET /integration-settings/{id}` answers for its channels (length and counting, editor,
     * threads, media limits, settings JSON Schema, tools) and the settings a post must give.
     */
    platformRules(identifier: string) {
      if (!isPlatformIdentifier(identifier)) throw new AppError('NOT_FOUND', `Platform "${identifier}" not found; GET /platforms lists the identifiers`);
      let described = rules.get(identifier);
      if (!described) {
        described = describeRules(deps.adapters[identifier].metadata);
        rules.set(identifier, described);
      }
      return described;
    },
  };
}

export type PlatformsService = ReturnType<typeof createPlatformsService>;
