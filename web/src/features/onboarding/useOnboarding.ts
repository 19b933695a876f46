import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { api, unwrap } from '../../api/client.js';
import { onboardingKey, STEP_SOURCES } from './checklist.js';

/** GET /onboarding, read again whenever a query one of its steps depends on is invalidated. */
export function useOnboarding(enabled = true) {
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!enabled) return;
    return queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'invalidate' && STEP_SOURCES.includes((event.query.queryKey as readonly unknown[])[0])) {
        void queryClient.invalidateQueries({ queryKey: onboardingKey });
      }
    });
  }, [enabled, queryClient]);
  return useQuery({ queryKey: onboardingKey, queryFn: () => unwrap(api.GET('/onboarding')), enabled });
}
