import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { api, unwrap } from '../../api/client.js';
import { videoKeys, type VideoJob } from '../../api/queries.js';
import { EmptyState, ErrorNotice, Spinner } from '../../components/ui.js';
import { formatBytes, formatSeconds } from '../media/format.js';
import { When } from '../settings/common.js';

const ACTIVE = new Set<VideoJob['status']>(['queued', 'running']);
const STATUS_LABEL: Record<VideoJob['status'], string> = { queued: 'Queued', running: 'Making', succeeded: 'Ready', failed: 'Failed' };
const OUTPUT_LABEL: Record<string, string> = { vertical: 'vertical', horizontal: 'horizontal' };

function JobRow({ job, providerName }: { job: VideoJob; providerName: string }) {
  const pct = Math.round(job.progress * 100);
  const title = `${providerName}, ${OUTPUT_LABEL[job.output] ?? job.output}`;
  return (
    <li className={`video-job video-job-${job.status}`} aria-label={`${title}: ${STATUS_LABEL[job.status]}`}>
      <div className="video-job-head">
        <span className="video-job-title">{title}</span>
        <span className={`badge video-status-${job.status}`}>{STATUS_LABEL[job.status]}</span>
        <span className="hint">
          <When iso={job.createdAt} />
          {` · ${job.credits} ${job.credits === 1 ? 'credit' : 'credits'}${job.creditState === 'refunded' ? ' (refunded)' : ''}`}
        </span>
      </div>
      {ACTIVE.has(job.status) ? (
        <div className="video-job-progress">
          <progress max={100} value={pct} aria-label={`Progress of ${title}`} aria-valuetext={`${pct}%${job.stage ? `, ${job.stage}` : ''}`} />
          <span className="hint">
            {job.status === 'queued' ? 'Waiting for a worker' : `${pct}%${job.stage ? ` · ${job.stage}` : ''}`}
          </span>
        </div>
      ) : null}
      {job.status === 'failed' ? <p className="error">{job.error ?? 'The video could not be made.'}</p> : null}
      {job.status === 'succeeded' ? (
        job.media ? (
          <div className="video-job-result">
            <video controls preload="metadata" playsInline src={job.media.path} className={`video-player video-player-${job.output}`} aria-label={`Video: ${title}`} />
            <p className="hint">
              {job.media.duration !== null ? `${formatSeconds(job.media.duration)} · ` : ''}
              {formatBytes(job.media.size)}
              {job.media.width && job.media.height ? ` · ${job.media.width}×${job.media.height}` : ''} · in the media library as{' '}
              <a href={job.media.path} target="_blank" rel="noreferrer">
                {job.media.originalName ?? job.media.name}
              </a>
            </p>
          </div>
        ) : (
          <p className="hint">The video was deleted from the media library since.</p>
        )
      ) : null}
    </li>
  );
}

/**
 * The organisation's generations (GET /video/jobs, newest first), read again every `pollMs` while
 * one is queued or running. When one finishes, the credits (spent or refunded) and the media
 * library (the new video) are read again too.
 */
export function VideoJobs({ providerNames, pollMs = 2000 }: { providerNames: ReadonlyMap<string, string>; pollMs?: number }) {
  const queryClient = useQueryClient();
  const jobs = useQuery({
    queryKey: videoKeys.jobs,
    queryFn: () => unwrap(api.GET('/video/jobs', { params: { query: { page: 0 } } })),
    refetchInterval: (q) => (q.state.data?.jobs.some((j) => ACTIVE.has(j.status)) ? pollMs : false),
  });

  const active = jobs.data?.jobs.filter((j) => ACTIVE.has(j.status)).map((j) => j.id) ?? [];
  const activeKey = active.join(',');
  const previous = useRef<string[]>([]);
  useEffect(() => {
    const now = activeKey ? activeKey.split(',') : [];
    if (previous.current.some((id) => !now.includes(id))) {
      void queryClient.invalidateQueries({ queryKey: videoKeys.credits });
      void queryClient.invalidateQueries({ queryKey: ['media'] });
    }
    previous.current = now;
  }, [activeKey, queryClient]);

  return (
    <section className="video-jobs" aria-labelledby="video-jobs-title">
      <h2 id="video-jobs-title">Your videos {jobs.data && jobs.data.total > 0 ? <span className="hint">{jobs.data.total}</span> : null}</h2>
      {jobs.isPending ? (
        <Spinner label="Loading the videos" />
      ) : jobs.error ? (
        <ErrorNotice error={jobs.error} />
      ) : jobs.data.jobs.length === 0 ? (
        <EmptyState title="No videos yet">
          <p>Generated videos show here and in the media library.</p>
        </EmptyState>
      ) : (
        <ol className="video-job-list" aria-label="Video generations">
          {jobs.data.jobs.map((j) => (
            <JobRow key={j.id} job={j} providerName={providerNames.get(j.type) ?? j.type} />
          ))}
        </ol>
      )}
    </section>
  );
}
