import { useState } from 'react';
import { useTimeZone } from '../../api/session.js';
import { ErrorNotice, Notice, Spinner } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import type { Period } from '../analytics/analytics-data.js';
import { MetricGrid } from '../analytics/MetricCard.js';
import { PeriodPicker } from '../analytics/PeriodPicker.js';
import { usePostAnalytics, type PostDetail } from './post-queries.js';

/** The series the service adds from the post's short links (not the platform's own figures). */
const LINK_CLICKS = 'Link clicks';

/** A published post's own figures (GET /analytics/post/{postId}). */
export function PostFigures({ post }: { post: PostDetail }) {
  const tz = useTimeZone();
  const [days, setDays] = useState<Period>(30);
  const figures = usePostAnalytics(post.id, days, post.state === 'PUBLISHED');
  const platform = platformName(post.integration.providerIdentifier);
  const series = figures.data && Array.isArray(figures.data) ? figures.data : undefined;
  const history = series?.some((s) => s.data.length > 1) ?? false;
  const fromPlatform = series?.some((s) => s.label !== LINK_CLICKS) ?? false;
  const clicks = series?.some((s) => s.label === LINK_CLICKS) ?? false;
  return (
    <section className="post-section" aria-labelledby="post-figures">
      <div className="post-section-head">
        <h2 id="post-figures">Figures</h2>
        {history ? <PeriodPicker days={days} onChange={setDays} label="Period of the figures" /> : null}
      </div>
      {post.state !== 'PUBLISHED' ? <p className="hint">Figures come once the post is published.</p> : null}
      {figures.isPending && post.state === 'PUBLISHED' ? <Spinner label="Loading figures" /> : null}
      <ErrorNotice error={figures.error} />
      {figures.data && !Array.isArray(figures.data) ? (
        <Notice>Tidings does not know this post’s id on {platform}, so its figures cannot be read. Record which post it is (above) to see them.</Notice>
      ) : null}
      {series && series.length === 0 ? <p className="hint">{platform} does not report figures for single posts.</p> : null}
      {series && series.length > 0 ? (
        <>
          <MetricGrid series={series} timeZone={tz} compact />
          {!history && fromPlatform ? <p className="hint">As {platform} reports them now.</p> : null}
          {clicks ? <p className="hint">Link clicks are counted by the shortener{fromPlatform ? '' : `; ${platform} does not report figures for single posts`}.</p> : null}
        </>
      ) : null}
    </section>
  );
}
