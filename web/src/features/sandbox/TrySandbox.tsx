import { useState } from 'react';
import type { Integration } from '../../api/queries.js';
import { Button, ErrorNotice } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { trySandboxPlatforms, useConnectSandbox, useSandboxPlatforms } from './queries.js';
import './sandbox.css';

/**
 * "Try it with sandbox channels": one click connects three sandbox channels (x, Bluesky and
 * Telegram where the deployment has their kits, else the first three it has) and hands them to
 * `onConnected` (the calendar opens the composer with them selected). Nothing shows when the
 * deployment offers no sandbox.
 */
export function TrySandboxButton({ onConnected, variant = 'secondary' }: { onConnected: (channels: Integration[]) => void; variant?: 'primary' | 'secondary' }) {
  const { platforms } = useSandboxPlatforms();
  const connect = useConnectSandbox();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const chosen = trySandboxPlatforms(platforms);
  if (chosen.length === 0) return null;
  const names = chosen.map(platformName);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const made: Integration[] = [];
      // one after the other: each is its own channel, and a refusal stops the rest
      for (const identifier of chosen) made.push(await connect.mutateAsync({ identifier }));
      onConnected(made);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="sbx-try">
      <Button variant={variant} onClick={() => void run()} disabled={busy} title={`Connects sandbox channels of ${names.join(', ')}: nothing reaches the real platforms`}>
        {busy ? 'Connecting sandbox channels…' : 'Try it with sandbox channels'}
      </Button>
      {error ? <ErrorNotice error={error} /> : null}
    </span>
  );
}

/** A visible "Sandbox" label beside a channel's name. */
export function SandboxBadge({ className }: { className?: string }) {
  return (
    <span className={`sbx-badge${className ? ` ${className}` : ''}`} title="A sandbox channel: posts go to a simulated platform inside Tidings, never the real one">
      Sandbox
    </span>
  );
}
