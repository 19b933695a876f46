/** Placeholder until this tab is built (issue 30, part 5). */
export function EvergreenTab() {
  return <p>Coming in this change.</p>;
}
