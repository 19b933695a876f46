import type { Locator, Page } from 'playwright-core';

/** Drags a calendar event by its top onto the time-grid slot of `date` (yyyy-mm-dd) at `time` (HH:mm), with FullCalendar's pointer dragging. */
export async function dragToSlot(page: Page, event: Locator, date: string, time: string) {
  // the grid opens scrolled to now: the target slot is brought to the middle first, then the
  // event into view if it is not (both fit in the grid's height for the moves the tests make)
  const target = page.locator(`td.fc-timegrid-slot-lane[data-time="${time}:00"]`);
  await scrollSlotIntoView(target);
  await event.scrollIntoViewIfNeeded();
  const from = (await event.boundingBox())!;
  const col = (await page.locator(`td.fc-timegrid-col[data-date="${date}"]`).boundingBox())!;
  const lane = (await target.boundingBox())!;
  const start = { x: from.x + from.width / 2, y: from.y + 6 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 8, start.y + 8, { steps: 4 });
  await page.mouse.move(col.x + col.width / 2, lane.y + lane.height / 2, { steps: 12 });
  await page.mouse.up();
}

/** Scrolls the time grid so this slot lane (`td.fc-timegrid-slot-lane[data-time=…]`) is in its middle. */
export async function scrollSlotIntoView(lane: Locator) {
  await lane.evaluate((el: { scrollIntoView(o: { block: 'center' }): void }) => el.scrollIntoView({ block: 'center' }));
}
