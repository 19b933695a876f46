import type { PostState } from '../../api/queries.js';

/**
 * A small mark per post state (drawn, not a font: the app's CSP loads no fonts), so a state is
 * told by shape as well as by colour. Decorative: the state's name is always given as text too.
 */
export function StateIcon({ state }: { state: PostState }) {
  const common = { width: 12, height: 12, viewBox: '0 0 12 12', 'aria-hidden': true, focusable: false, className: 'cal-state-icon' } as const;
  switch (state) {
    case 'QUEUE':
      return (
        <svg {...common}>
          <circle cx="6" cy="6" r="4.8" fill="none" stroke="currentColor" strokeWidth="1.5" />
          <path d="M6 3.4V6l1.9 1.2" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
        </svg>
      );
    case 'DRAFT':
      return (
        <svg {...common}>
          <path d="M2 10l.5-2.3L8.2 2a1 1 0 0 1 1.4 0l.4.4a1 1 0 0 1 0 1.4L4.3 9.5z" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" />
        </svg>
      );
    case 'PUBLISHED':
      return (
        <svg {...common}>
          <path d="M2.2 6.3l2.4 2.4 5.2-5.4" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      );
    default:
      return (
        <svg {...common}>
          <path d="M6 1.2l5 9H1z" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" />
          <path d="M6 4.6v2.6M6 8.7v.1" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" />
        </svg>
      );
  }
}
