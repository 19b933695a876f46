import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useVideoCredits, useVideoProviders, videoKeys, type VideoCredits, type VideoJob } from '../../api/queries.js';
import { EmptyState, ErrorNotice, PageHeader, Spinner } from '../../components/ui.js';
import { hasPrompt, PromptForm } from './PromptForm.js';
import { SlidesForm } from './SlidesForm.js';
import { VideoJobs } from './VideoJobs.js';
import './video.css';

/** The first day of the next month, as a date: `resetsAt` is midnight UTC, so it is read in UTC. */
function renewsOn(iso: string): string {
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(iso));
}

function CreditsPanel({ credits }: { credits: VideoCredits }) {
  const total = credits.allowance === null ? null : credits.allowance + credits.granted;
  return (
    <section className="video-credits card" aria-label="Video credits">
      <p className="video-credits-figure">
        {credits.remaining === null ? (
          <>
            <strong>Unlimited</strong> video credits
          </>
        ) : (
          <>
            <strong>{credits.remaining}</strong> of {total} video credits left
          </>
        )}
      </p>
      <p className="hint">
        {credits.plan} plan · {credits.used} used this month
        {credits.reserved > 0 ? ` · ${credits.reserved} held by videos being made` : ''}
        {credits.granted > 0 && credits.allowance !== null ? ` · ${credits.granted} extra granted` : ''}
        {credits.allowance !== null ? ` · renews on ${renewsOn(credits.resetsAt)}` : ''}
      </p>
      {total !== null && total > 0 ? <progress className="video-credits-bar" max={total} value={credits.remaining ?? 0} aria-label="Credits left this month" /> : null}
    </section>
  );
}

/** The Video page (/video): this month's credits, a form per provider (slides built in), the generations. */
export default function VideoPage({ pollMs }: { pollMs?: number }) {
  const queryClient = useQueryClient();
  const providers = useVideoProviders();
  const credits = useVideoCredits();
  const names = useMemo(() => new Map((providers.data ?? []).map((p) => [p.identifier, p.name])), [providers.data]);

  function queued(job: VideoJob | undefined) {
    // the job shows at once; the list and the credits are read again behind it
    if (job) {
      queryClient.setQueryData(videoKeys.jobs, (page: { jobs: VideoJob[]; total: number } | undefined) =>
        page && !page.jobs.some((j) => j.id === job.id) ? { ...page, jobs: [job, ...page.jobs], total: page.total + 1 } : page,
      );
    }
    void queryClient.invalidateQueries({ queryKey: videoKeys.jobs });
    void queryClient.invalidateQueries({ queryKey: videoKeys.credits });
  }

  const slides = providers.data?.find((p) => p.identifier === 'slides');
  const others = providers.data?.filter((p) => p.identifier !== 'slides' && hasPrompt(p)) ?? [];

  return (
    <div className="video-page">
      <PageHeader title="Video">
        <p className="hint">Videos made for your posts, stored in the media library.</p>
      </PageHeader>

      {credits.isPending ? <Spinner label="Loading the credits" /> : credits.error ? <ErrorNotice error={credits.error} /> : <CreditsPanel credits={credits.data} />}

      {providers.isPending ? (
        <Spinner label="Loading the video providers" />
      ) : providers.error ? (
        <ErrorNotice error={providers.error} />
      ) : providers.data.length === 0 ? (
        <EmptyState title="Video generation is off in this deployment">
          <p>Its administrator has not turned on a video provider. Upload videos in the media library instead.</p>
        </EmptyState>
      ) : (
        <>
          {slides ? <SlidesForm provider={slides} onQueued={queued} /> : null}
          {others.map((p) => (
            <PromptForm key={p.identifier} provider={p} onQueued={queued} />
          ))}
        </>
      )}

      <VideoJobs providerNames={names} {...(pollMs ? { pollMs } : {})} />
    </div>
  );
}
