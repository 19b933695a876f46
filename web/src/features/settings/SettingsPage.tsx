import { Navigate, NavLink, Route, Routes, useLocation } from 'react-router';
import { useCanManage } from '../../api/session.js';
import { Notice, PageHeader } from '../../components/ui.js';
import { ApprovalRulesSettings } from '../approvals/ApprovalRulesSettings.js';
import { ApiKeysSettings } from './ApiKeysSettings.js';
import { ApprovedAppsSettings } from './ApprovedAppsSettings.js';
import { MembersSettings } from './MembersSettings.js';
import { ProfileSettings } from './ProfileSettings.js';
import { ShortLinksSettings } from './ShortLinksSettings.js';
import { SignaturesSettings } from './SignaturesSettings.js';
import { TemplatesSettings } from './TemplatesSettings.js';
import { WebhooksSettings } from './WebhooksSettings.js';
import { WritingHelpSettings } from './WritingHelpSettings.js';
import './settings.css';

const TABS = [
  { to: 'profile', label: 'Profile' },
  { to: 'members', label: 'Members' },
  { to: 'api-keys', label: 'API keys', managers: true },
  { to: 'apps', label: 'Approved apps' },
  { to: 'webhooks', label: 'Webhooks' },
  { to: 'templates', label: 'Templates & signatures' },
  { to: 'approvals', label: 'Approval rules' },
  { to: 'short-links', label: 'Short links' },
  { to: 'writing-help', label: 'Writing help' },
];

/** Settings (mounted at /settings/*): profile, members, API keys, approved apps, webhooks, templates & signatures, approval rules, short links, writing help. */
export default function SettingsPage() {
  const canManage = useCanManage();
  const { pathname } = useLocation();
  const section = TABS.find((t) => pathname === `/settings/${t.to}` || pathname.startsWith(`/settings/${t.to}/`));
  return (
    <div className="settings">
      <PageHeader title="Settings" documentTitle={section ? `${section.label} · Settings` : 'Settings'} />
      <nav className="settings-tabs" aria-label="Settings sections">
        {TABS.map((t) => (
          <NavLink key={t.to} to={`/settings/${t.to}`} className={({ isActive }) => `settings-tab${isActive ? ' active' : ''}`}>
            {t.label}
            {t.managers && !canManage ? <span className="visually-hidden"> (owners and admins)</span> : null}
          </NavLink>
        ))}
      </nav>
      <div className="settings-body">
        <Routes>
          <Route index element={<Navigate to="/settings/profile" replace />} />
          <Route path="profile" element={<ProfileSettings />} />
          <Route path="members" element={<MembersSettings />} />
          <Route path="api-keys" element={<ApiKeysSettings />} />
          <Route path="apps" element={<ApprovedAppsSettings />} />
          <Route path="webhooks" element={<WebhooksSettings />} />
          <Route path="approvals" element={<ApprovalRulesSettings />} />
          <Route path="short-links" element={<ShortLinksSettings />} />
          <Route path="writing-help" element={<WritingHelpSettings />} />
          <Route
            path="templates"
            element={
              <>
                <TemplatesSettings />
                <SignaturesSettings />
              </>
            }
          />
          <Route path="*" element={<Notice kind="bad">No such settings page.</Notice>} />
        </Routes>
      </div>
    </div>
  );
}
