#!/usr/bin/env node
// `npm run fuzz -- --runs N [--seed S] [--db pglite|postgres] [--rounds R] [-t "<operation>"]`
// runs the fuzz tier (test/fuzz) longer or with another seed than the test suite does: it sets
// FUZZ_RUNS / FUZZ_SEED / FUZZ_ROUNDS and runs vitest on test/fuzz for the chosen database(s).
// Anything it does not know goes to vitest unchanged.
import { spawnSync } from 'node:child_process';

const args = process.argv.slice(2);
const env = { ...process.env };
const projects = [];
const passThrough = [];

function value(i, name) {
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) {
    console.error(`fuzz: ${name} needs a value`);
    process.exit(2);
  }
  return v;
}

for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--runs') {
    env.FUZZ_RUNS = value(i, a);
    i++;
  } else if (a === '--seed') {
    env.FUZZ_SEED = value(i, a);
    i++;
  } else if (a === '--rounds') {
    env.FUZZ_ROUNDS = value(i, a);
    i++;
  } else if (a === '--db') {
    const db = value(i, a);
    if (db !== 'pglite' && db !== 'postgres') {
      console.error(`fuzz: --db is pglite or postgres, not ${db}`);
      process.exit(2);
    }
    projects.push(db);
    i++;
  } else {
    passThrough.push(a);
  }
}
for (const [name, v] of [['--runs', env.FUZZ_RUNS], ['--seed', env.FUZZ_SEED], ['--rounds', env.FUZZ_ROUNDS]]) {
  if (v !== undefined && !/^\d+$/.test(v)) {
    console.error(`fuzz: ${name} must be a whole number, not ${v}`);
    process.exit(2);
  }
}

const vitestArgs = ['vitest', 'run', 'test/fuzz', ...(projects.length > 0 ? projects : ['pglite', 'postgres']).flatMap((p) => ['--project', p]), ...passThrough];
console.log(`fuzz: FUZZ_RUNS=${env.FUZZ_RUNS ?? '(default)'} FUZZ_SEED=${env.FUZZ_SEED ?? '(default)'} npx ${vitestArgs.join(' ')}`);
// CI runs the API fuzz file on PGlite only (vitest.config.ts); asked for by hand, it runs on each database named.
const result = spawnSync('npx', vitestArgs, { stdio: 'inherit', env: { ...env, TIDINGS_FUZZ_ALL_DBS: '1' } });
process.exit(result.status ?? 1);
