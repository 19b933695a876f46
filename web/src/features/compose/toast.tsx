import { useEffect } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { Notice } from '../../components/ui.js';

/**
 * The success notice after a save: the dialog has closed by then (and its caller may unmount it),
 * so the notice lives in its own small root at the end of the page, and goes after a while or
 * when dismissed.
 */
let root: Root | undefined;
let host: HTMLElement | undefined;

/** A link the notice offers (the post just made): `open` follows it inside the app, without a reload. */
export interface ToastLink {
  href: string;
  label: string;
  open?: (href: string) => void;
}

function Toast({ message, link, onClose }: { message: string; link?: ToastLink; onClose: () => void }) {
  useEffect(() => {
    const t = setTimeout(onClose, 8000);
    return () => clearTimeout(t);
  }, [message, onClose]);
  return (
    <div className="compose-toast">
      <Notice kind="ok">
        <span>{message}</span>
        {link ? (
          <a
            className="compose-toast-link"
            href={link.href}
            onClick={(e) => {
              if (!link.open || e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
              e.preventDefault();
              onClose();
              link.open(link.href);
            }}
          >
            {link.label}
          </a>
        ) : null}
        <button type="button" className="btn btn-ghost compose-small" onClick={onClose} aria-label="Dismiss">
          ×
        </button>
      </Notice>
    </div>
  );
}

export function announce(message: string, link?: ToastLink) {
  if (!host || !host.isConnected) {
    host = document.createElement('div');
    host.className = 'compose-toast-host';
    document.body.append(host);
    root = createRoot(host);
  }
  const close = () => root?.render(null);
  root!.render(<Toast key={Date.now()} message={message} link={link} onClose={close} />);
}
