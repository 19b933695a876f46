import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { api, ApiFailure, setCsrfToken, unwrap } from './client.js';
import type { paths } from './schema.js';

export type Me = paths['/me']['get']['responses'][200]['content']['application/json'];

const MeContext = createContext<Me | undefined>(undefined);

/** GET /me: who is signed in and where they work; the app renders only once it is known. */
export function useMeQuery() {
  return useQuery({
    queryKey: ['me'],
    queryFn: async () => {
      const me = await unwrap(api.GET('/me'));
      setCsrfToken(me.csrfToken);
      return me;
    },
    staleTime: 60_000,
    retry: (count, err) => !(err instanceof ApiFailure) && count < 2,
  });
}

export function MeProvider({ me, children }: { me: Me; children: ReactNode }) {
  return <MeContext.Provider value={me}>{children}</MeContext.Provider>;
}

/** The signed-in person (inside the app shell). */
export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside MeProvider');
  return me;
}

/** The time zone the person sees times in: their choice, else the browser's. UTC stays the truth. */
export function useTimeZone(): string {
  return useMe().user.timezone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Owners and admins manage keys, apps, members and invitations. */
export function useCanManage(): boolean {
  const role = useMe().organization.role;
  return role === 'owner' || role === 'admin';
}
