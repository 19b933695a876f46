import { lazy, Suspense, useState, type ReactNode } from 'react';

// the connect picker is the Channels page's; fetched when first opened from the calendar
const ConnectDialog = lazy(() => import('../channels/ConnectDialog.js').then((m) => ({ default: m.ConnectDialog })));

/** The Channels page's connect dialog, opened from elsewhere (the checklist, the explained "New post"). */
export function useConnectChannel(): { open: () => void; dialog: ReactNode } {
  const [isOpen, setOpen] = useState(false);
  return {
    open: () => setOpen(true),
    dialog: isOpen ? (
      <Suspense fallback={null}>
        <ConnectDialog open onOpenChange={setOpen} />
      </Suspense>
    ) : null,
  };
}
