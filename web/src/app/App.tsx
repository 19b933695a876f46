import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiFailure, signInUrl } from '../api/client.js';
import { MeProvider, useMeQuery } from '../api/session.js';
import { ErrorNotice, Notice, Spinner } from '../components/ui.js';
import { useDocumentTitle } from '../lib/documentTitle.js';
import { Layout } from './Layout.js';

// Each page is its own chunk: the first load carries the shell and the calendar only.
const loadCalendar = () => import('../features/calendar/CalendarPage.js');
const CalendarPage = lazy(loadCalendar);
// Most visits start at the calendar: fetch its chunk beside GET /me, not after it.
if (typeof window !== 'undefined' && ['/', '/calendar'].includes(window.location.pathname)) void loadCalendar();
const PostDetailPage = lazy(() => import('../features/posts/PostDetailPage.js'));
const ChannelsPage = lazy(() => import('../features/channels/ChannelsPage.js'));
const MediaPage = lazy(() => import('../features/media/MediaPage.js'));
const VideoPage = lazy(() => import('../features/video/VideoPage.js'));
const AnalyticsPage = lazy(() => import('../features/analytics/AnalyticsPage.js'));
const NotificationsPage = lazy(() => import('../features/notifications/NotificationsPage.js'));
const SettingsPage = lazy(() => import('../features/settings/SettingsPage.js'));
const SandboxFeedPage = lazy(() => import('../features/sandbox/SandboxFeedPage.js'));
const AutopilotPage = lazy(() => import('../features/autopilot/AutopilotPage.js'));
const ActivityPage = lazy(() => import('../features/activity/ActivityPage.js'));
const ApprovalsPage = lazy(() => import('../features/approvals/ApprovalsPage.js'));
// Preview links (issue 31): a client's page, outside the signed-in shell
const PreviewPage = lazy(() => import('../features/preview/PreviewPage.js'));

export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: (count, err) => !(err instanceof ApiFailure) && count < 2, refetchOnWindowFocus: false },
    },
  });
}

function NotFound() {
  useDocumentTitle('Page not found');
  return <Notice kind="bad">No such page.</Notice>;
}

function Shell() {
  const me = useMeQuery();
  useEffect(() => {
    if (me.error instanceof ApiFailure && me.error.status === 401) window.location.assign(signInUrl());
  }, [me.error]);
  if (me.isPending) {
    return (
      <div className="content">
        <Spinner label="Signing in" />
      </div>
    );
  }
  if (me.error) {
    const noOrganisation = me.error instanceof ApiFailure && me.error.status === 403;
    return (
      <div className="content">
        {noOrganisation ? (
          <Notice>
            You do not belong to an organisation yet. <a href="/account">Create one</a>, or open the invitation link you were sent.
          </Notice>
        ) : (
          <ErrorNotice error={me.error} />
        )}
      </div>
    );
  }
  return (
    <MeProvider me={me.data}>
      <Layout>
        <Suspense fallback={<Spinner />}>
          <Routes>
            <Route path="/" element={<Navigate to="/calendar" replace />} />
            <Route path="/calendar" element={<CalendarPage />} />
            <Route path="/posts/:id" element={<PostDetailPage />} />
            <Route path="/channels" element={<ChannelsPage />} />
            <Route path="/channels/:id/sandbox" element={<SandboxFeedPage />} />
            <Route path="/library" element={<MediaPage />} />
            <Route path="/video" element={<VideoPage />} />
            <Route path="/analytics" element={<AnalyticsPage />} />
            <Route path="/notifications" element={<NotificationsPage />} />
            <Route path="/activity" element={<ActivityPage />} />
            <Route path="/approvals" element={<ApprovalsPage />} />
            <Route path="/autopilot/*" element={<AutopilotPage />} />
            <Route path="/settings/*" element={<SettingsPage />} />
            <Route path="*" element={<NotFound />} />
          </Routes>
        </Suspense>
      </Layout>
    </MeProvider>
  );
}

export function App({ queryClient = createQueryClient() }: { queryClient?: QueryClient }) {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route
            path="/preview/:token"
            element={
              <Suspense fallback={<Spinner />}>
                <PreviewPage />
              </Suspense>
            }
          />
          <Route path="*" element={<Shell />} />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
