import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * axe-core in the browser tier (issue 25): `checkA11y(page, label)` runs axe on the page as it is now
 * and fails with a readable list (rule id, help, impact, CSS targets and the failure summary) when it
 * finds a violation of impact 'serious' or 'critical'. Less severe findings come back for a test to
 * look at if it wants, but do not fail.
 *
 * The app's CSP allows no inline script, so axe is not injected as a <script> tag: its source is
 * evaluated through the DevTools protocol (page.evaluate), which the page's CSP does not govern.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; failureSummary?: string; html: string }[];
}

const FAILING = new Set(['serious', 'critical']);

/** Runs axe on the whole document and answers every violation found (all impacts). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // evaluated as strings: the tests' TypeScript has no DOM types
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate<AxeViolation[]>(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    // only plain data crosses back to Node
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary, html: n.html.slice(0, 200) })),
    }));
  })()`);
}

/** A violation list as text a person can act on: one block per rule, one line per element. */
export function describeViolations(label: string, violations: AxeViolation[]): string {
  const lines = [`axe-core found ${violations.length} serious or critical violation(s) on ${label}:`];
  for (const v of violations) {
    lines.push(`- ${v.id} (${v.impact}): ${v.help} — ${v.helpUrl}`);
    for (const n of v.nodes) {
      lines.push(`    at ${n.target.map(String).join(' ')}  ${n.html}`);
      if (n.failureSummary) lines.push(...n.failureSummary.split('\n').map((l) => `      ${l}`));
    }
  }
  return lines.join('\n');
}

/**
 * Fails (throws) when axe finds a serious or critical violation on the page; `label` names the
 * page and state in the message ("calendar, month view"). Answers the less severe violations.
 */
export async function checkA11y(page: Page, label: string): Promise<AxeViolation[]> {
  const all = await axeViolations(page);
  const failing = all.filter((v) => v.impact !== null && FAILING.has(v.impact));
  if (failing.length > 0) throw new Error(describeViolations(label, failing));
  return all.filter((v) => !failing.includes(v));
}
