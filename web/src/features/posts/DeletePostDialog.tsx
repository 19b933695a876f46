import type { PostDetail } from './post-queries.js';
import { Button, ErrorNotice, Modal } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';

/**
 * Deleting a post, with the API's rule in plain words (API.md §5, DELETE /posts/{id}): Tidings
 * deletes only its own record; whatever is already on the platform stays there.
 */
export function DeletePostDialog({ post, open, onOpenChange, onConfirm, pending, error }: { post: PostDetail; open: boolean; onOpenChange: (open: boolean) => void; onConfirm: () => void; pending: boolean; error: unknown }) {
  const platform = platformName(post.integration.providerIdentifier);
  const onPlatform = [post, ...post.thread].filter((p) => p.state === 'PUBLISHED').length;
  const replies = post.thread.length;
  const published = post.state === 'PUBLISHED' || onPlatform > 0;
  return (
    <Modal open={open} onOpenChange={onOpenChange} title="Delete this post?">
      <div className="delete-rule">
        {published ? (
          <>
            <p>
              <strong>This deletes Tidings’ record only. The post stays on {platform}.</strong>
            </p>
            <p>
              Tidings never deletes anything on {platform}: {onPlatform > 1 ? `the ${onPlatform} published items stay` : 'it stays'} online, visible as before. To take it down, delete it on {platform} itself
              {post.releaseURL ? (
                <>
                  {' '}
                  (
                  <a href={post.releaseURL} target="_blank" rel="noopener noreferrer">
                    open it on {platform}
                  </a>
                  )
                </>
              ) : null}
              .
            </p>
            <p>Here, the post leaves the calendar, with its history and figures.</p>
          </>
        ) : (
          <p>
            The post will not be published on {platform}, and it leaves the calendar. Nothing has been sent to {platform}.
          </p>
        )}
        {replies > 0 ? <p>Its {replies === 1 ? 'reply goes' : `${replies} replies go`} with it.</p> : null}
        <p className="hint">Copies of this post on other channels are not affected.</p>
      </div>
      <ErrorNotice error={error} />
      <div className="dialog-actions">
        <Button variant="secondary" onClick={() => onOpenChange(false)}>
          Cancel
        </Button>
        <Button variant="danger" onClick={onConfirm} disabled={pending}>
          {pending ? 'Deleting…' : published ? 'Delete from Tidings' : 'Delete post'}
        </Button>
      </div>
    </Modal>
  );
}
