import { Command, InvalidArgumentError, Option } from 'commander';
import { AdminCommandSchema, runAdminCommand, type AdminCommand } from './admin/admin.commands.js';
import { sendAdminCommand } from './admin/admin-socket.js';
import { ConfigError, loadConfig, loadMcpBridgeConfig, type Config, type Role } from './config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { AppError } from './errors.js';
import { VERSION } from './version.js';

class CliError extends Error {}
/** A command given wrongly (a missing credential, a bad address): exit status 2, as for a bad configuration. */
class UsageError extends CliError {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs one admin command: through the running service's admin socket, else on the database directly. */
async function admin(config: Config, cmd: AdminCommand): Promise<unknown> {
  const checked = AdminCommandSchema.safeParse(cmd);
  if (!checked.success) {
    throw new CliError(checked.error.issues.map((i) => `--${i.path.join('.').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ${i.message}`).join('\n'));
  }
  cmd = checked.data;
  if (!config.databaseUrl) {
    const reply = await sendAdminCommand(config.dataDir, cmd);
    if (reply) {
      if (!reply.ok) throw new CliError(`${reply.error?.code ?? 'ERROR'}: ${reply.error?.message ?? 'failed'}`);
      return reply.result;
    }
  }
  // the application is loaded only by the commands that need it (`tidings mcp` starts fast without it)
  const { createDeps } = await import('./deps.js');
  let deps;
  try {
    deps = await createDeps(config, { withoutJobs: true });
  } catch (e) {
    if (e instanceof DataDirLockedError) {
      throw new CliError(`${e.message}\nThat process does not answer on its admin socket; is it still starting?`);
    }
    throw e;
  }
  try {
    return await runAdminCommand(deps.services, cmd);
  } catch (e) {
    if (e instanceof AppError) throw new CliError(`${e.code}: ${e.message}`);
    throw e;
  } finally {
    await deps.close();
  }
}

function print(json: boolean, value: unknown, human: () => string) {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

interface KeyLike {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

function keyLine(k: KeyLike) {
  const state = k.revokedAt ? `revoked ${k.revokedAt}` : `last used ${k.lastUsedAt ?? 'never'}`;
  return `${k.id}  ${k.prefix}…  ${k.name}  created ${k.createdAt}  ${state}`;
}

function nonEmpty(label: string) {
  return (v: string) => {
    if (v.trim() === '') throw new InvalidArgumentError(`${label} must not be empty`);
    return v;
  };
}

export function buildCli(): Command {
  const program = new Command('tidings').version(VERSION).description('Tidings: schedule and publish social posts');
  program.showHelpAfterError();

  program
    .command('serve')
    .description('run the service (API and/or publisher)')
    .addOption(new Option('--role <role>', 'which parts to run').choices(['api', 'worker', 'all']).default('all'))
    .action(async (opts: { role: Role }) => {
      const { serve } = await import('./server.js');
      await serve(loadConfig(), opts.role);
    });

  program
    .command('migrate')
    .description('apply database migrations')
    .action(async () => {
      await admin(loadConfig(), { command: 'migrate' });
      process.stdout.write('Migrations applied.\n');
    });

  program
    .command('mcp')
    .description('MCP on standard input/output for desktop assistants, relayed to a running service (its /mcp endpoint)')
    .option('--key <key>', 'API key or pos_ OAuth token (default: TIDINGS_API_KEY)')
    .option('--url <url>', "the service's address (default: TIDINGS_URL, else http://localhost:PORT, PORT 3000 when unset)")
    .action(async (o: { key?: string; url?: string }) => {
      const env = loadMcpBridgeConfig();
      const key = o.key?.trim() || env.key;
      if (!key) throw new UsageError('mcp: no credential; give --key <API key or pos_ token> or set TIDINGS_API_KEY');
      const base = o.url ?? env.url ?? `http://localhost:${env.port}`;
      let endpoint: URL;
      try {
        endpoint = new URL(`${base.replace(/\/+$/, '')}/mcp`);
      } catch {
        throw new UsageError(`mcp: ${o.url ? '--url' : env.url ? 'TIDINGS_URL' : 'PORT'} is not an address: ${base}`);
      }
      if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw new UsageError(`mcp: ${o.url ? '--url' : 'TIDINGS_URL'} must be an http:// or https:// address: ${base}`);
      const { runStdioBridge } = await import('./mcp/stdio-bridge.js');
      process.stderr.write(`tidings mcp: relaying standard input/output to ${endpoint.href}\n`);
      await runStdioBridge({ endpoint, key, version: VERSION, log: (line) => process.stderr.write(`tidings mcp: ${line}\n`) });
    });

  const org = program.command('org').description('organisations');
  org
    .command('create')
    .description('create an organisation and its first API key')
    .requiredOption('--name <name>', 'organisation name', nonEmpty('--name'))
    .option('--json', 'print JSON')
    .action(async (o: { name: string; json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'org.create', name: o.name })) as {
        organization: { id: string; name: string };
        apiKey: string;
      };
      print(!!o.json, { organization: r.organization, apiKey: r.apiKey }, () =>
        [`Organisation "${r.organization.name}" created: ${r.organization.id}`, `API key (shown once, keep it safe): ${r.apiKey}`].join('\n'),
      );
    });
  org
    .command('list')
    .description('list organisations')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'org.list' })) as { organizations: { id: string; name: string; plan: string }[] };
      print(!!o.json, r, () => r.organizations.map((x) => `${x.id}  ${x.name}  (plan ${x.plan})`).join('\n') || 'No organisations.');
    });

  const key = program.command('key').description('API keys');
  key
    .command('create')
    .description('create an API key for an organisation')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--name <name>', 'a name to recognise the key by', nonEmpty('--name'))
    .option('--json', 'print JSON')
    .action(async (o: { org: string; name: string; json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'key.create', org: o.org, name: o.name })) as { apiKey: string; key: KeyLike };
      print(!!o.json, r, () => `API key "${r.key.name}" created (${r.key.id}).\nKey (shown once, keep it safe): ${r.apiKey}`);
    });
  key
    .command('list')
    .description("list an organisation's API keys (never the keys themselves)")
    .requiredOption('--org <id>', 'organisation id')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'key.list', org: o.org })) as { keys: KeyLike[] };
      print(!!o.json, r, () => r.keys.map(keyLine).join('\n') || 'No keys.');
    });
  key
    .command('revoke')
    .description('revoke an API key (it stops working at once)')
    .argument('<id>', 'key id (from key list)')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'key.revoke', id })) as { key: KeyLike };
      print(!!o.json, r, () => `Revoked: ${keyLine(r.key)}`);
    });

  const user = program.command('user').description('people who sign in to the web pages');
  user
    .command('create')
    .description('create an account (the first one owns the deployment); without --password-stdin, prints a one-time link to choose the password')
    .requiredOption('--email <email>', 'email address', nonEmpty('--email'))
    .option('--name <name>', 'display name', '')
    .option('--org-name <name>', 'name of the organisation made for the account (when it gets a new one)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--json', 'print JSON')
    .action(async (o: { email: string; name: string; orgName?: string; passwordStdin?: boolean; json?: boolean }) => {
      const password = o.passwordStdin ? (await readStdin()).replace(/\r?\n$/, '') : undefined;
      const r = (await admin(loadConfig(), { command: 'user.create', email: o.email, name: o.name, password, organizationName: o.orgName })) as {
        user: { id: string; email: string };
        organizationId: string;
        setPasswordLink?: string;
      };
      print(!!o.json, r, () =>
        [
          `Account ${r.user.email} created: ${r.user.id} (organisation ${r.organizationId})`,
          r.setPasswordLink ? `Choose the password here (works once, for 24 hours): ${r.setPasswordLink}` : 'Password set; sign in at /account/login.',
        ].join('\n'),
      );
    });
  user
    .command('list')
    .description('list accounts and their organisations')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'user.list' })) as {
        users: { id: string; email: string; deploymentOwner: boolean; organizations: { name: string; role: string }[] }[];
      };
      print(!!o.json, r, () =>
        r.users.map((u) => `${u.id}  ${u.email}${u.deploymentOwner ? '  (deployment owner)' : ''}  ${u.organizations.map((m) => `${m.name}: ${m.role}`).join(', ')}`).join('\n') || 'No accounts.',
      );
    });
  user
    .command('reset-link')
    .description('print a one-time link to choose a new password (for when mail is not set up)')
    .requiredOption('--email <email>', 'email address', nonEmpty('--email'))
    .option('--json', 'print JSON')
    .action(async (o: { email: string; json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'user.reset-link', email: o.email })) as { link: string };
      print(!!o.json, r, () => `Choose a new password here (works once, for 24 hours): ${r.link}`);
    });

  const plan = program.command('plan').description('plans and their limits');
  plan
    .command('set')
    .description("set an organisation's plan")
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--plan <name>', 'plan name (see plan list)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; plan: string; json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'plan.set', org: o.org, plan: o.plan })) as {
        organization: { id: string; name: string; plan: string };
      };
      print(!!o.json, r, () => `Organisation ${r.organization.id} is now on plan "${r.organization.plan}".`);
    });
  plan
    .command('list')
    .description('list plans and their limits (empty = unlimited)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'plan.list' })) as { plans: Record<string, unknown>[] };
      const cell = (v: unknown) => (typeof v === 'number' ? String(v) : '∞');
      print(!!o.json, r, () =>
        ['plan        channels  posts/month  webhooks  video/month  requests/window']
          .concat(
            r.plans.map(
              (p) =>
                `${(p.name as string).padEnd(12)}${cell(p.maxChannels).padEnd(10)}${cell(p.maxScheduledPostsPerMonth).padEnd(13)}${cell(p.maxWebhooks).padEnd(10)}${cell(p.videoCreditsPerMonth).padEnd(13)}${p.rateLimit === null ? 'default' : cell(p.rateLimit)}`,
            ),
          )
          .join('\n'),
      );
    });

  const credits = program.command('credits').description("video credits: an organisation's month, a plan's allowance, extra credits");
  type CreditsOut = { credits: { period: string; plan: string; allowance: number | null; granted: number; used: number; reserved: number; remaining: number | null; resetsAt: string } };
  const creditsLine = (c: CreditsOut['credits']) =>
    `${c.period} on plan "${c.plan}": allowance ${c.allowance ?? 'unlimited'}${c.granted ? ` + ${c.granted} granted` : ''}, used ${c.used}, reserved ${c.reserved}, remaining ${c.remaining ?? 'unlimited'} (renews ${c.resetsAt})`;
  credits
    .command('show')
    .description("an organisation's video credits this month")
    .requiredOption('--org <id>', 'organisation id')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; json?: boolean }) => {
      const r = (await admin(loadConfig(), { command: 'credits.show', org: o.org })) as CreditsOut;
      print(!!o.json, r, () => creditsLine(r.credits));
    });
  credits
    .command('set')
    .description("set a plan's monthly video credits")
    .requiredOption('--plan <name>', 'plan name (see plan list)')
    .requiredOption('--monthly <n>', 'credits per month, or "unlimited"')
    .option('--json', 'print JSON')
    .action(async (o: { plan: string; monthly: string; json?: boolean }) => {
      const monthly = o.monthly === 'unlimited' ? null : /^\d+$/.test(o.monthly) ? Number(o.monthly) : NaN;
      if (Number.isNaN(monthly)) throw new CliError('--monthly: a whole number of credits, or "unlimited"');
      const r = (await admin(loadConfig(), { command: 'credits.set', plan: o.plan, monthly })) as { plan: { name: string; videoCreditsPerMonth: number | null } };
      print(!!o.json, r, () => `Plan "${r.plan.name}" now gives ${r.plan.videoCreditsPerMonth ?? 'unlimited'} video credits a month.`);
    });
  credits
    .command('grant')
    .description('give an organisation extra video credits for this month (negative to take back)')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--credits <n>', 'how many')
    .option('--note <text>', 'why (kept with the grant)')
    .option('--json', 'print JSON')
    .action(async (o: { org: string; credits: string; note?: string; json?: boolean }) => {
      if (!/^-?\d+$/.test(o.credits)) throw new CliError('--credits: a whole number');
      const r = (await admin(loadConfig(), { command: 'credits.grant', org: o.org, credits: Number(o.credits), note: o.note })) as CreditsOut;
      print(!!o.json, r, () => creditsLine(r.credits));
    });

  return program;
}

try {
  await buildCli().parseAsync(process.argv);
} catch (e) {
  if (e instanceof ConfigError || e instanceof CliError || e instanceof DataDirLockedError) {
    process.stderr.write(`tidings: ${e.message}\n`);
    process.exitCode = e instanceof ConfigError || e instanceof UsageError ? 2 : 1;
  } else {
    process.stderr.write(`tidings: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  }
  // A failed command must not linger on timers of half-started components.
  process.exit();
}
