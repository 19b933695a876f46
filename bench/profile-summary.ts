/**
 * Reads V8 CPU profiles (`--cpu-prof`, e.g. `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"`
 * with a bench) and prints where the time went, as text a note can hold:
 *
 * - self time by where the code lives (a package under node_modules, node's own `node:` modules,
 *   this repository's src/, garbage collection, idle, the rest);
 * - the top functions by self time;
 * - the top functions by total time (self + callees), counted once per sample, so a recursive
 *   frame is not counted twice — the text form of a flame graph's widest frames.
 *
 *   node --import tsx bench/profile-summary.ts /tmp/prof/CPU.*.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
const files = args.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1));
if (files.length === 0) {
  console.error('usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile… [--top N]');
  process.exit(2);
}

/** Where a frame's code lives, for the first table. */
function placeOf(frame: CallFrame): string {
  const name = frame.functionName;
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(idle)') return 'idle';
  if (name === '(program)' || name === '(root)') return 'V8 / native (program)';
  const url = frame.url;
  if (!url) return 'native (no script)';
  if (url.startsWith('node:')) return 'node: ' + url.slice(5).split('/')[0];
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const src = url.indexOf('/dist/');
  if (src >= 0) return 'tidings ' + url.slice(src + 1).split('/').slice(0, 3).join('/');
  return url.replace(/^file:\/\//, '');
}

const label = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${f.lineNumber + 1}`;

function pct(n: number, of: number) {
  return ((100 * n) / of).toFixed(1).padStart(5) + ' %';
}

for (const file of files) {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const idle = [...selfUs.entries()].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);
  const busy = total - idle;

  const byPlace = new Map<string, number>();
  const bySelf = new Map<string, number>();
  const byTotal = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    byPlace.set(placeOf(node.callFrame), (byPlace.get(placeOf(node.callFrame)) ?? 0) + us);
    if (node.callFrame.functionName === '(idle)') continue;
    bySelf.set(label(node.callFrame), (bySelf.get(label(node.callFrame)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const l = label(byId.get(at)!.callFrame);
      if (seen.has(l)) continue;
      seen.add(l);
      byTotal.set(l, (byTotal.get(l) ?? 0) + us);
    }
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  console.log(`\n## ${file}\n`);
  console.log(`wall ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s, sampled ${(total / 1e6).toFixed(1)} s, busy (not idle) ${(busy / 1e6).toFixed(1)} s\n`);
  console.log('self time by place (share of busy time):');
  for (const [place, us] of sorted(byPlace)) if (place !== 'idle' && us / busy >= 0.005) console.log(`  ${pct(us, busy)}  ${place}`);
  console.log(`\ntop ${top} functions by self time:`);
  for (const [l, us] of sorted(bySelf).slice(0, top)) console.log(`  ${pct(us, busy)}  ${l}`);
  console.log(`\ntop ${top} functions by total time (self + callees):`);
  for (const [l, us] of sorted(byTotal).filter(([l]) => !l.startsWith('(root)')).slice(0, top)) console.log(`  ${pct(us, busy)}  ${l}`);
}
