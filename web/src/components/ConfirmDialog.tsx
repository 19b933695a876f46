import * as Dialog from '@radix-ui/react-dialog';
import { useRef } from 'react';
import { Button } from './ui.js';
import './confirm-dialog.css';

/**
 * A question that must be answered before going on ("Discard this post?"): a Radix dialog with the
 * alertdialog role, its question as title and its consequence as description. Escape answers
 * `cancel`; a click outside does nothing (an answer is needed); the cancel button, the safe
 * choice, has the focus when it opens.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirm,
  cancel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  description: string;
  confirm: string;
  cancel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (next ? undefined : onCancel())}>
      <Dialog.Portal>
        {/* above any dialog it is asked from */}
        <Dialog.Overlay className="modal-overlay modal-overlay-confirm" />
        <Dialog.Content
          role="alertdialog"
          className="modal modal-confirm"
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            cancelRef.current?.focus();
          }}
          onInteractOutside={(e) => e.preventDefault()}
        >
          <Dialog.Title className="modal-title">{title}</Dialog.Title>
          <Dialog.Description className="modal-confirm-text">{description}</Dialog.Description>
          <div className="modal-confirm-actions">
            <Button ref={cancelRef} variant="secondary" onClick={onCancel}>
              {cancel}
            </Button>
            <Button variant="danger" onClick={onConfirm}>
              {confirm}
            </Button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
