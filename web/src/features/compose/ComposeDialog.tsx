import { Modal } from '../../components/ui.js';

/** What the composer opens with: a new post (optionally at a time, for channels) or an existing group to edit. */
export interface ComposeInitial {
  /** ISO instant the post is planned for (a calendar slot the person clicked) */
  date?: string;
  /** channels preselected */
  integrationIds?: string[];
  /** edit the posts of this group (GET /posts/group/{group}) */
  group?: string;
  /** start from a copy of this post (duplicate) */
  duplicateOf?: string;
}

/**
 * PLACEHOLDER with the final interface: the compose slice replaces the body. Callers (calendar,
 * post detail) render `<ComposeDialog open onOpenChange initial />`; it closes itself after a save
 * and invalidates ['posts'].
 */
export default function ComposeDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void; initial?: ComposeInitial }) {
  return (
    <Modal open={open} onOpenChange={onOpenChange} title="New post" wide>
      <p>Composer coming in its slice.</p>
    </Modal>
  );
}
