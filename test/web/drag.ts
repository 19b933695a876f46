import type { Locator, Page } from 'playwright-core';

/** Drags a calendar event by its top onto the time-grid slot of `date` (yyyy-mm-dd) at `time` (HH:mm), with FullCalendar's pointer dragging. */
export async function dragToSlot(page: Page, event: Locator, date: string, time: string) {
  await event.scrollIntoViewIfNeeded();
  const from = (await event.boundingBox())!;
  const col = (await page.locator(`td.fc-timegrid-col[data-date="${date}"]`).boundingBox())!;
  const lane = (await page.locator(`td.fc-timegrid-slot-lane[data-time="${time}:00"]`).boundingBox())!;
  const start = { x: from.x + from.width / 2, y: from.y + 6 };
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + 8, start.y + 8, { steps: 4 });
  await page.mouse.move(col.x + col.width / 2, lane.y + lane.height / 2, { steps: 12 });
  await page.mouse.up();
}
