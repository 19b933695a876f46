/**
 * The holder's side of a preview link (`/preview-api`, outside the documented API: no generated
 * types): what `GET /preview-api/{token}` answers.
 */
export type PreviewStatus = 'draft' | 'pending_approval' | 'changes_requested' | 'approved' | 'scheduled' | 'published' | 'error';

export interface PreviewMedia {
  path: string;
  type: 'image' | 'video';
  thumbnail: string | null;
  alt: string | null;
}

export interface PreviewPost {
  channel: { name: string; identifier: string; picture: string | null };
  items: { content: string; image: PreviewMedia[]; delay: number }[];
  settings: Record<string, unknown>;
}

export interface PreviewGroup {
  group: string;
  publishDate: string;
  status: PreviewStatus;
  posts: PreviewPost[];
}

export interface PreviewView {
  link: { title: string; expiresAt: string; allowApproval: boolean };
  organization: { name: string };
  groups: PreviewGroup[];
}

export const STATUS_LABEL: Record<PreviewStatus, string> = {
  draft: 'Draft',
  pending_approval: 'Awaiting your approval',
  changes_requested: 'Changes requested',
  approved: 'Approved',
  scheduled: 'Scheduled',
  published: 'Published',
  error: 'Not published',
};
