import { PageHeader } from '../../components/ui.js';

/** Placeholder: built in its own slice of issue 16. */
export default function SettingsPage() {
  return <PageHeader title="Settings" />;
}
