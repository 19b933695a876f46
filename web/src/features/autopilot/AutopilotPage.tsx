import { Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { Notice, PageHeader } from '../../components/ui.js';
import { EvergreenTab } from './EvergreenTab.js';
import { FeedsTab } from './FeedsTab.js';
import { ImportTab } from './ImportTab.js';
import { SeriesTab } from './SeriesTab.js';
import './autopilot.css';

const TABS = [
  { to: 'repeating', label: 'Repeating posts' },
  { to: 'evergreen', label: 'Evergreen queues' },
  { to: 'feeds', label: 'Feeds' },
  { to: 'import', label: 'Import and export' },
];

/** Autopilot (mounted at /autopilot/*): repeating posts, evergreen queues, feeds, bulk import and export. */
export default function AutopilotPage() {
  const { pathname } = useLocation();
  const section = TABS.find((t) => pathname === `/autopilot/${t.to}` || pathname.startsWith(`/autopilot/${t.to}/`));
  return (
    <div className="autopilot">
      <PageHeader title="Autopilot" documentTitle={section ? `${section.label} · Autopilot` : 'Autopilot'} />
      <nav className="settings-tabs" aria-label="Autopilot sections">
        {TABS.map((t) => (
          <NavLink key={t.to} to={`/autopilot/${t.to}`} className={({ isActive }) => `settings-tab${isActive ? ' active' : ''}`}>
            {t.label}
          </NavLink>
        ))}
      </nav>
      <div className="autopilot-body">
        <Routes>
          <Route index element={<Navigate to="/autopilot/repeating" replace />} />
          <Route path="repeating" element={<SeriesTab />} />
          <Route path="evergreen/*" element={<EvergreenTab />} />
          <Route path="feeds/*" element={<FeedsTab />} />
          <Route path="import" element={<ImportTab />} />
          <Route path="*" element={<Notice kind="bad">No such autopilot page.</Notice>} />
        </Routes>
      </div>
    </div>
  );
}
