import { useEffect } from 'react';

/** The app's name, last in every document title. */
export const APP_NAME = 'Tidings';

/** "Calendar" → "Calendar · Tidings"; nothing → "Tidings". */
export function documentTitle(...parts: (string | undefined | null | false)[]): string {
  return [...parts.filter((p): p is string => Boolean(p)), APP_NAME].join(' · ');
}

/**
 * Names the browser tab (and what a screen reader announces on a page change) after the page:
 * each route gets its own title, most specific part first ("API keys · Settings · Tidings").
 * PageHeader calls it, so every page that shows a heading has a title to match.
 */
export function useDocumentTitle(...parts: (string | undefined | null | false)[]): void {
  const title = documentTitle(...parts);
  useEffect(() => {
    document.title = title;
  }, [title]);
}
