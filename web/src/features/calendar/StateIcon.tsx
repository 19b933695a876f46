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

/**
 * The mark of an occurrence of a repeating post (a series): two arrows in a loop. Not decorative:
 * it is the only place the calendar says so, so it is an image named "Repeating" (decorative
 * beside a heading that says it).
 */
export function RepeatIcon({ size = 12, decorative = false }: { size?: number; decorative?: boolean }) {
  const named = decorative ? ({ 'aria-hidden': true } as const) : ({ role: 'img', 'aria-label': 'Repeating' } as const);
  return (
    <svg width={size} height={size} viewBox="0 0 12 12" {...named} focusable={false} className="cal-repeat-icon">
      {decorative ? null : <title>Repeating</title>}
      <path d="M2 5.2V4.6A1.8 1.8 0 0 1 3.8 2.8H9.5M8 1.3l1.5 1.5L8 4.3" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinecap="round" strokeLinejoin="round" />
      <path d="M10 6.8v.6a1.8 1.8 0 0 1-1.8 1.8H2.5M4 10.7L2.5 9.2 4 7.7" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
