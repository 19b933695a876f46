import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { applyFilters, groupEvents, readSearch, writeFilters, type CalendarFilters as Filters, type CalendarPost, type GroupEventProps } from '../calendar/calendarModel.js';
import { CalendarFilters } from '../calendar/CalendarFilters.js';
import type { PostApproval } from './types.js';

/** The calendar's review mode (issue 31): only posts awaiting approval or sent back, marked. */

function post(id: string, group: string, approval: PostApproval['status'] | null): CalendarPost {
  return {
    id,
    content: `<p>Post ${id}</p>`,
    publishDate: '2031-03-04T09:00:00.000Z',
    releaseURL: null,
    releaseId: null,
    state: approval === 'approved' ? 'QUEUE' : 'DRAFT',
    group,
    creationMethod: 'web',
    settings: {},
    tags: [],
    integration: { id: `ch-${id}`, providerIdentifier: 'telegram', name: `Channel ${id}`, picture: null },
    image: [],
    error: null,
    delay: 0,
    publishedAt: null,
    thread: [],
    createdAt: '2031-03-01T00:00:00.000Z',
    updatedAt: '2031-03-01T00:00:00.000Z',
    ...(approval ? { approval: { status: approval, ruleId: 'r1', requestedBy: 'Carl', requestedAt: null, decidedBy: null, decidedAt: null } } : {}),
  };
}

describe('the calendar in review mode', () => {
  const posts = [post('a', 'g1', 'pending_approval'), post('b', 'g2', 'changes_requested'), post('c', 'g3', 'approved'), post('d', 'g4', null)];

  it('keeps only posts awaiting approval or with changes requested, and the URL keeps the mode', () => {
    const review: Filters = { channels: [], states: [], review: true };
    expect(applyFilters(posts, review).map((p) => p.id)).toEqual(['a', 'b']);
    expect(applyFilters(posts, { channels: [], states: [] }).map((p) => p.id)).toEqual(['a', 'b', 'c', 'd']);
    const url = writeFilters(new URLSearchParams('view=week'), review);
    expect(url.get('review')).toBe('1');
    expect(readSearch(url).review).toBe(true);
    expect(readSearch(writeFilters(url, { channels: [], states: [] })).review).toBeUndefined();
  });

  it('marks the events awaiting a decision or changes, and no other', () => {
    const events = groupEvents(posts);
    const marked = events.filter((e) => e.classNames.includes('post-review')).map((e) => (e.extendedProps as GroupEventProps).approval);
    expect(marked).toEqual(['pending_approval', 'changes_requested']);
    expect(events.find((e) => e.extendedProps.group === 'g1')!.extendedProps.tooltip).toContain('Pending approval');
  });

  it('has a Review toggle among the filters', async () => {
    const onChange = vi.fn();
    render(<CalendarFilters filters={{ channels: [], states: [] }} onChange={onChange} integrations={[]} groups={[]} />);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Review' }));
    expect(onChange).toHaveBeenCalledWith({ channels: [], states: [], review: true });
  });
});
