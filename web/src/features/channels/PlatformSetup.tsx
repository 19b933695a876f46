import { useRef } from 'react';
import type { PlatformReadiness } from '../../api/queries.js';
import { useCanManage, useMe } from '../../api/session.js';
import { Notice } from '../../components/ui.js';
import { CopyButton } from '../settings/common.js';

/**
 * What a platform that is not ready on this deployment needs (GET /platforms `setup`): for an
 * owner or admin, exactly what to register at the platform and which variables to set; for
 * anyone else, whom to ask. Values of variables are never known to the app, only whether each is set.
 */
export function PlatformSetup({ platform }: { platform: PlatformReadiness }) {
  const canManage = useCanManage();
  const organization = useMe().organization.name;
  const setup = platform.setup;
  if (!setup) {
    return <Notice>{platform.name} cannot be connected in this version of Tidings.</Notice>;
  }
  if (!canManage) {
    return (
      <Notice>
        {platform.name} is not set up on this server yet: Tidings needs its own app registered at {platform.name} first. Ask an administrator or the owner of {organization} to
        set it up.
      </Notice>
    );
  }
  return <AdminSteps platform={platform} setup={setup} />;
}

function AdminSteps({ platform, setup }: { platform: PlatformReadiness; setup: NonNullable<PlatformReadiness['setup']> }) {
  const callback = useRef<HTMLTextAreaElement>(null);
  const name = platform.name;
  return (
    <div className="ch-setup">
      <p>
        Before anyone can connect {name}, this server needs its own app at {name}. As an administrator you can set it up:
      </p>
      <ol className="ch-setup-steps">
        <li>
          <p>
            Register {setup.app}
            {setup.consoleUrl ? (
              <>
                {' '}
                in the{' '}
                <a href={setup.consoleUrl} target="_blank" rel="noreferrer noopener">
                  {name} developer console
                </a>
              </>
            ) : null}
            .
          </p>
        </li>
        <li>
          <label htmlFor={`ch-callback-${platform.identifier}`}>Give it this callback (redirect) URL, exactly:</label>
          <div className="ch-setup-copy">
            {/* a text area, so the whole URL is seen on a phone too */}
            <textarea
              ref={callback}
              id={`ch-callback-${platform.identifier}`}
              className="input ch-setup-url"
              readOnly
              rows={1}
              spellCheck={false}
              value={setup.callbackUrl}
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton text={setup.callbackUrl} label="Copy URL" fallback={() => callback.current} />
          </div>
        </li>
        <li>
          <p>Set these variables on the server to the app's values, then restart Tidings:</p>
          <ul className="ch-setup-vars" aria-label="Variables">
            {setup.variables.map((v) => (
              <li key={v.name}>
                <code>{v.name}</code> <span className={v.set ? 'ch-var-set' : 'ch-var-missing'}>{v.set ? 'set' : 'missing'}</span>
              </li>
            ))}
          </ul>
        </li>
      </ol>
      <p className="hint">
        Step by step:{' '}
        {setup.docsUrl ? (
          <a href={setup.docsUrl} target="_blank" rel="noreferrer noopener">
            setting up {name} in the Tidings documentation
          </a>
        ) : (
          <>
            <code>{setup.docsPath}</code> in the Tidings documentation
          </>
        )}
        .
      </p>
    </div>
  );
}
