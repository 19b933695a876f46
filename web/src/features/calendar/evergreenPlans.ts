import { useQueries, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api, unwrap } from '../../api/client.js';
import type { QueuePlan } from './calendarModel.js';

const DAY_MS = 86_400_000;

/**
 * The enabled evergreen queues' plans reaching to the end of the period shown (at most the 90 days
 * the API plans ahead), for the calendar to show their slots as planned, not yet created. Nothing is
 * asked for a period already past. The query keys are the autopilot page's, so both share answers.
 */
export function useEvergreenPlans(range: { start: string; end: string }, now: number = Date.now()): QueuePlan[] {
  const end = Date.parse(range.end);
  const ahead = end > now;
  const days = Math.min(90, Math.max(1, Math.ceil((end - now) / DAY_MS)));
  const queues = useQuery({ queryKey: ['evergreen'], queryFn: () => unwrap(api.GET('/evergreen')), enabled: ahead, staleTime: 60_000 });
  const enabled = ahead ? (queues.data ?? []).filter((q) => q.enabled) : [];
  const plans = useQueries({
    queries: enabled.map((q) => ({
      queryKey: ['evergreen', q.id, 'plan', days],
      queryFn: () => unwrap(api.GET('/evergreen/{id}/plan', { params: { path: { id: q.id }, query: { days } } })),
      staleTime: 60_000,
    })),
  });
  // the same array while no answer changed, so the calendar's events are not rebuilt at every render
  const answers = plans.map((p) => p.data);
  const queueList = queues.data;
  return useMemo(() => enabled.map((q, i) => ({ queue: { id: q.id, name: q.name }, slots: answers[i]?.slots ?? [] })), [queueList, ahead, ...answers]);
}
