import { useEffect, type RefObject } from 'react';

/** ARIA grid roles FullCalendar gives its week and day views' layout table and its rows and cells. */
const GRID_ROLES = '[role="grid"], [role="rowgroup"], [role="row"], [role="columnheader"], [role="rowheader"], [role="gridcell"]';

/**
 * Repairs what FullCalendar 6 renders that assistive technology cannot use (found by axe-core):
 * - its toolbar icons (‹ ›) are `<span role="img">` without a name, inside buttons already named
 *   by their title ("Previous week"): hidden from the accessibility tree, the button keeps its name;
 * - the month grid's cells are `aria-labelledby` their day number only ("12"), while they show the
 *   day's posts too: a name that hides what is visible. Without it a cell is named by its content;
 * - its scrolling areas (the hours of the week and day views, the list) cannot be reached by a
 *   keyboard when they hold no post: each one that scrolls becomes a named region and a tab stop,
 *   so arrow keys scroll it. In the week and day views that scroller sits inside a `role="grid"`
 *   layout table whose rows and cells carry no meaning (a column per day, a row per half hour,
 *   no names), and a focusable region may not sit between a grid and its rows: there the layout
 *   table is made presentational; the day headers, times and posts (links) are read as they are.
 * FullCalendar re-renders on every view, period and data change, so a MutationObserver repairs
 * each new render and overflow change. It answers changes of its own attributes with a pass that
 * finds nothing left to do, so it never loops.
 */
export function repairFullCalendar(root: ParentNode): void {
  for (const icon of root.querySelectorAll('.fc-icon[role="img"]:not([aria-hidden])')) icon.setAttribute('aria-hidden', 'true');
  for (const cell of root.querySelectorAll('.fc-daygrid-day[role="gridcell"][aria-labelledby]')) cell.removeAttribute('aria-labelledby');
  for (const el of root.querySelectorAll(`.fc-timegrid :is(${GRID_ROLES}), .fc-timegrid:is(${GRID_ROLES})`)) el.setAttribute('role', 'presentation');
  for (const scroller of root.querySelectorAll<HTMLElement>('.fc-scroller')) {
    // FullCalendar writes the overflow it chose inline ("hidden scroll" when the hours scroll); the
    // header's scroller reserves a scrollbar's width the same way but has nothing to scroll
    const mayScroll = /auto|scroll/.test(`${scroller.style.overflowX} ${scroller.style.overflowY}`);
    const overflows = scroller.scrollHeight > scroller.clientHeight + 1 || scroller.scrollWidth > scroller.clientWidth + 1;
    // in the month grid a region would stand between the grid and its rows: only outside a grid
    const inGrid = scroller.closest('[role="grid"]') !== null;
    const marked = scroller.dataset.a11yScroller !== undefined;
    if (mayScroll && overflows && !inGrid && !marked && !scroller.hasAttribute('tabindex')) {
      scroller.tabIndex = 0;
      scroller.setAttribute('role', 'region');
      scroller.setAttribute('aria-label', 'Calendar, scrollable');
      scroller.dataset.a11yScroller = '';
    } else if (marked && !(mayScroll && overflows && !inGrid)) {
      scroller.removeAttribute('tabindex');
      scroller.removeAttribute('role');
      scroller.removeAttribute('aria-label');
      delete scroller.dataset.a11yScroller;
    }
  }
}

export function useFullCalendarRepairs(frame: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const root = frame.current;
    if (!root) return undefined;
    repairFullCalendar(root);
    const observer = new MutationObserver(() => repairFullCalendar(root));
    observer.observe(root, { childList: true, subtree: true, attributes: true, attributeFilter: ['aria-labelledby', 'role', 'style'] });
    return () => observer.disconnect();
  }, [frame]);
}
