import { PageHeader } from '../../components/ui.js';

/** Placeholder: built in its own slice of issue 16. */
export default function MediaPage() {
  return <PageHeader title="Media" />;
}
