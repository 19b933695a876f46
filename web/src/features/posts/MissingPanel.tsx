import { Button, ErrorNotice, Notice, Spinner } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { useMissing, useRecordRelease, type PostDetail } from './post-queries.js';

/** Field paths as people read them: `settings.title` → "settings › title", `value[1].image` → "item 2 › image". */
export function fieldLabel(path: string): string {
  return path
    .replace(/^value\[(\d+)\]/, (_, n: string) => `item ${Number(n) + 1}`)
    .replace(/\[(\d+)\]/g, (_, n: string) => ` ${Number(n) + 1}`)
    .split('.')
    .filter(Boolean)
    .join(' › ');
}

/**
 * What still keeps a draft (or a failed post) from publishing (GET /posts/{id}/missing), and, for
 * a post published without a known platform id, the account's recent posts to pick it from.
 */
export function MissingPanel({ post }: { post: PostDetail }) {
  const unknownRelease = post.state === 'PUBLISHED' && post.releaseId === 'missing';
  const enabled = post.state === 'DRAFT' || post.state === 'ERROR' || unknownRelease;
  const missing = useMissing(post.id, enabled, post.updatedAt);
  const record = useRecordRelease(post.id);
  const platform = platformName(post.integration.providerIdentifier);
  if (!enabled) return null;
  const data = missing.data;
  // a failed post with nothing in its way needs no section: Retry says it all
  if (post.state === 'ERROR' && data?.ready) return null;
  // awaiting approval: it is queued by an approver's decision, not by a Schedule click
  const awaiting = post.approval?.status === 'pending_approval' || post.approval?.status === 'changes_requested';
  return (
    <section className="post-section" aria-labelledby="post-missing">
      <h2 id="post-missing">{unknownRelease ? `Which ${platform} post is it?` : post.state === 'DRAFT' ? 'Before it can be scheduled' : 'Before retrying'}</h2>
      {missing.isPending ? <Spinner label="Checking the post" /> : null}
      <ErrorNotice error={missing.error} />
      {data && !unknownRelease ? (
        data.ready ? (
          <Notice kind="ok">{awaiting ? 'Nothing blocks this post: once approved, it is queued for its time.' : `Nothing blocks this post: it can be ${post.state === 'DRAFT' ? 'scheduled' : 'retried'}.`}</Notice>
        ) : (
          <div className="notice notice-bad">
            <p className="missing-title">{data.missing.length === 1 ? 'One thing still blocks it:' : `${data.missing.length} things still block it:`}</p>
            <ul className="missing-list">
              {data.missing.map((m, i) => (
                <li key={`${m.field}:${m.code}:${i}`}>
                  {m.message}
                  {m.field ? <span className="hint"> — {fieldLabel(m.field)}</span> : null}
                </li>
              ))}
            </ul>
          </div>
        )
      ) : null}
      {data && unknownRelease ? (
        <>
          <p>
            {platform} took this post, but Tidings did not learn its id there, so it cannot link to it or read its figures. Pick it from the account’s recent posts:
          </p>
          {data.candidates && data.candidates.length > 0 ? (
            <ul className="candidates">
              {data.candidates.map((c) => (
                <li key={c.id}>
                  <a href={c.url} target="_blank" rel="noopener noreferrer">
                    {c.url}
                  </a>
                  <Button variant="secondary" disabled={record.isPending} onClick={() => record.mutate({ releaseId: c.id, releaseURL: c.url })}>
                    This is the one
                  </Button>
                </li>
              ))}
            </ul>
          ) : (
            <p className="hint">{platform} lists no recent posts of the account to choose from.</p>
          )}
          <ErrorNotice error={record.error} />
        </>
      ) : null}
    </section>
  );
}
