#!/usr/bin/env node
/**
 * `npm run test:conformance`: runs the official MCP conformance suite (the referee) against the fixture in
 * examples/conformance and fails on anything short of a clean score.
 *
 * 1. Installs the pinned referee and a Node 22 (the referee needs >= 22) into .conformance/, once.
 * 2. Builds the project and starts the fixture on 127.0.0.1 (PORT, or a free port), waits until it answers.
 * 3. Runs `conformance server --requirements R` for both revisions the endpoint serves, 2026-07-28 (per-request
 *    envelope) and 2025-11-25 (initialize, served statelessly), each with its empty expected-failures baseline.
 * 4. Stops the fixture, reads every checks.json and prints a per-scenario table for each set.
 * Fails on any FAILURE, WARNING or SKIPPED check in a required scenario, on a required scenario that did not
 * run, and on any check short of SUCCESS in the pending scenarios.
 * 5. The extensions, tasks (SEP-2663) and skills (SEP-2640): runs each of their scenarios for real at 2026-07-28
 * and gates it (see below). The last line counts the gated scenarios of both sets and of the extensions step
 * (what .ci/run adds up).
 *
 * `MCP_LEGACY=stateful` starts the fixture (every one of them) with 2025-era sessions, and gates 2025-11-25's
 * pending scenarios too.
 * `MCP_URL=http://host:port/mcp` runs the referee against a server that is already up instead of step 2.
 * `--no-build` skips the build of step 2 (CI builds once for every run); `--install-only` does step 1 alone, so
 * that runs started side by side do not install at the same time.
 * `--cluster N` (`npm run test:conformance:cluster`) starts N fixtures sharing Redis (`REDIS_URL`, default the
 * machine's) and one request-state secret, behind a round-robin proxy, and runs the referee through the proxy.
 * `--tasks bullmq` (`npm run test:conformance:bullmq`) starts the fixture as a web instance whose task tools run
 * as BullMQ jobs (`MCP_TASKS=bullmq`, sharing Redis) and a worker process of the same fixture that runs them,
 * and runs the tasks extension step only: every task is queued by one process and run by the other.
 * `--gateway` (`npm run test:conformance:gateway`) starts the fixture and, in front of it, a gateway app that mounts
 * it with `prefix: ''` (examples/conformance/gateway.ts), and runs the tools, prompts and resources scenarios of
 * both revisions through the gateway, each on its own, gated like the extensions (SUCCESS or INFO).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REFEREE = '@modelcontextprotocol/conformance';
// runConformance (src/testing/conformance-referee.ts) tells users to install this same release; its spec holds them equal.
const REFEREE_VERSION = '0.2.0-alpha.12';
const NODE_PACKAGE = 'node@22';
const REQUIREMENT_SETS = ['2026-07-28', '2025-11-25'];
// 2025-11-25's pending server-sse-polling resumes a stream with Last-Event-ID on a session: a stateless server
// has neither (2026-07-28: "streams are not resumable"), so it is run and reported, not gated, unless the
// fixture runs with sessions (MCP_LEGACY=stateful), where every pending scenario of both sets must pass.
const GATED_PENDING = new Set(process.env.MCP_LEGACY === 'stateful' ? REQUIREMENT_SETS : ['2026-07-28']);
const PROBE_VERSION = '2026-07-28';
const tasksAt = process.argv.indexOf('--tasks');
const queuedTasks = tasksAt >= 0 && process.argv[tasksAt + 1] === 'bullmq';
// With the tasks on a queue, only the tasks step runs: the requirement sets exercise nothing the queue changes.
const throughGateway = process.argv.includes('--gateway');
const requirementSets = queuedTasks || throughGateway ? [] : REQUIREMENT_SETS;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const prefix = join(root, '.conformance');
const node22 = join(prefix, 'node_modules', 'node', 'bin', 'node');
const refereeDir = join(prefix, 'node_modules', ...REFEREE.split('/'));
// With sessions the 2025-11-25 baseline is empty: its one entry is the WARNING of a server that mints none.
const stateful = process.env.MCP_LEGACY === 'stateful';
const baselineFor = (requirements) =>
  join(
    root,
    'scripts',
    `conformance-expected-failures.${requirements}${stateful && requirements === '2025-11-25' ? '.stateful' : ''}.yaml`,
  );
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  return result;
}

function refereeInstalled() {
  if (!existsSync(node22) || !existsSync(join(refereeDir, 'package.json'))) return false;
  const version = JSON.parse(readFileSync(join(refereeDir, 'package.json'), 'utf8')).version;
  const nodeVersion = spawnSync(node22, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  return version === REFEREE_VERSION && nodeVersion.startsWith('v22.');
}

function ensureReferee() {
  if (refereeInstalled()) return;
  console.log(`Installing ${REFEREE}@${REFEREE_VERSION} and ${NODE_PACKAGE} into .conformance/ ...`);
  mkdirSync(prefix, { recursive: true });
  run(npm, [
    'install',
    '--prefix',
    prefix,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    NODE_PACKAGE,
    `${REFEREE}@${REFEREE_VERSION}`,
  ]);
  if (!refereeInstalled()) throw new Error(`The referee or Node 22 did not install correctly under ${prefix}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilAnswering(url, fixture, timeoutMs = 60_000) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROBE_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROBE_VERSION,
    'mcp-method': 'server/discover',
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (fixture.exitCode !== null) throw new Error(`The fixture exited with ${fixture.exitCode} before answering`);
    try {
      const res = await fetch(url, { method: 'POST', headers, body });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`The fixture did not answer server/discover at ${url} within ${timeoutMs} ms`);
}

function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(killer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** The scenario lists of the frozen requirements file: required server scenarios and pending ones. */
function readRequirements(requirements) {
  const lines = readFileSync(join(refereeDir, 'requirements', `${requirements}.yaml`), 'utf8').split('\n');
  const required = [];
  const pending = [];
  let section = '';
  let entry = null;
  for (const line of lines) {
    const top = /^([a-z_]+):/.exec(line);
    if (top) section = top[1];
    else if (section === 'server' && /^ {2}- (\S+)/.test(line)) required.push(/^ {2}- (\S+)/.exec(line)[1]);
    else if (section === 'not_scored') {
      const start = /^ {2}- scenario: (\S+)/.exec(line);
      if (start) entry = { scenario: start[1] };
      const field = /^ {4}(leg|reason): (\S+)/.exec(line);
      if (entry && field) entry[field[1]] = field[2];
      if (entry?.leg === 'server' && entry.reason === 'pending' && !pending.includes(entry.scenario))
        pending.push(entry.scenario);
    }
  }
  return { required, pending };
}

const STATUSES = ['SUCCESS', 'FAILURE', 'WARNING', 'SKIPPED', 'INFO'];

function readResults(outDir) {
  const results = new Map();
  for (const name of readdirSync(outDir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(name);
    const file = join(outDir, name, 'checks.json');
    if (!match || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, 'utf8'));
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0]));
    for (const check of checks) counts[check.status] = (counts[check.status] ?? 0) + 1;
    results.set(match[1], { counts, total: checks.length, problems: checks.filter((c) => c.status !== 'SUCCESS') });
  }
  return results;
}

/** The `server:` entries of a baseline file: `scenario` or `scenario:check-id`. */
function readBaseline(file) {
  const entries = new Set();
  let section = '';
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const top = /^([a-z_]+):/.exec(line);
    if (top) section = top[1];
    const entry = /^ {2}- ([^\s#]+)/.exec(line);
    if (section === 'server' && entry) entries.add(entry[1]);
  }
  return entries;
}

/**
 * One set's table and verdicts. A problem the baseline names is the referee's to judge (it fails the run when
 * the entry goes stale); pending scenarios are gated only where `gatePending` says they can all pass.
 */
function report(results, { required, pending }, baseline, gatePending, infoPassesPending = false) {
  const failures = [];
  const rows = [];
  const kindOf = (scenario) =>
    required.includes(scenario) ? 'required' : pending.includes(scenario) ? 'pending' : 'not scored';
  const ordered = [
    ...required,
    ...pending,
    ...[...results.keys()].filter((s) => !required.includes(s) && !pending.includes(s)).sort(),
  ];
  const totals = {
    required: { scenarios: 0, passed: 0, checks: 0, ...Object.fromEntries(STATUSES.map((s) => [s, 0])) },
  };
  totals.pending = structuredClone(totals.required);
  for (const scenario of ordered) {
    const kind = kindOf(scenario);
    const result = results.get(scenario);
    if (!result) {
      if (kind !== 'not scored') failures.push(`${scenario}: did not run`);
      rows.push([scenario, kind, '-', '-', '-', '-', '-', '-', 'MISSING']);
      continue;
    }
    const { counts, total } = result;
    const baselined = (p) => baseline.has(scenario) || baseline.has(`${scenario}:${p.id}`);
    // INFO is a pass in a required scenario; a pending one must be all SUCCESS, except where sessions make
    // 2025-11-25's pending scenarios count as required (server-sse-polling logs each request as INFO).
    const strict = kind === 'pending' && !infoPassesPending;
    const problems = result.problems.filter((p) => !baselined(p) && (strict || p.status !== 'INFO'));
    const gated = kind === 'required' || (kind === 'pending' && gatePending);
    const bad = gated ? problems.length : 0;
    const verdict =
      kind === 'not scored'
        ? counts.FAILURE > 0
          ? 'fails (ignored)'
          : 'ok'
        : !gated
          ? 'reported'
          : bad > 0
            ? 'FAIL'
            : result.problems.some(baselined)
              ? 'pass (baselined)'
              : 'pass';
    if (kind !== 'not scored') {
      const t = totals[kind];
      t.scenarios++;
      t.checks += total;
      if (bad === 0 && gated) t.passed++;
      for (const s of STATUSES) t[s] += counts[s];
      if (gated)
        for (const p of problems)
          failures.push(`${scenario}: ${p.status} ${p.id}${p.errorMessage ? ` — ${p.errorMessage}` : ''}`);
    }
    rows.push([scenario, kind, total, ...STATUSES.map((s) => counts[s]), verdict]);
  }
  const header = ['scenario', 'kind', 'checks', ...STATUSES, 'verdict'];
  const table = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
  const summary = ['required', 'pending']
    .map((k) => {
      const t = totals[k];
      const scope =
        k === 'pending' && !gatePending
          ? `${t.scenarios} scenarios reported, not gated`
          : `${t.passed}/${t.scenarios} scenarios`;
      return `${k}: ${scope}, ${t.checks} checks (${STATUSES.map((s) => `${t[s]} ${s}`).join(', ')})`;
    })
    .join('\n');
  const gated = required.length + (gatePending ? pending.length : 0);
  const passed = totals.required.passed + totals.pending.passed;
  return { table, summary, failures, passed, failed: gated - passed };
}

// ----- extensions: tasks (SEP-2663) and skills (SEP-2640) ---------------------------------------------------
// An extension's scenarios are "not scored" under `--requirements`, which never fails on them. This step runs
// each one on its own at 2026-07-28 (`--spec-version` needs `--force`: without it the referee prints SKIPPED
// and exits 0) into its own directory, and fails on anything short of SUCCESS or INFO, except where the referee
// itself always skips (tasks-status-notifications, pending its subscriptions/listen rewrite). The skills
// scenarios pass only with every check SUCCESS: a SKIPPED there means the fixture stopped serving skills.
const EXTENSIONS = [
  {
    label: 'tasks extension',
    scenarios: [
      'tasks-capability-negotiation',
      'tasks-dispatch-and-envelope',
      'tasks-lifecycle',
      'tasks-mrtr-composition',
      'tasks-mrtr-input',
      'tasks-request-headers',
      'tasks-request-state-removal',
      'tasks-required-task-error',
      'tasks-status-notifications',
      'tasks-wire-fields',
    ],
    refereeSkips: new Set(['tasks-status-notifications']),
    passes: ['SUCCESS', 'INFO'],
  },
  {
    label: 'skills extension',
    scenarios: ['sep-2640-skills-directory', 'sep-2640-skills-enumeration', 'sep-2640-skills-manifest'],
    refereeSkips: new Set(),
    passes: ['SUCCESS'],
  },
];
const EXTENSIONS_SPEC_VERSION = '2026-07-28';

/** Runs the referee and resolves with its exit code; asynchronously, so an in-process proxy (--cluster) keeps serving. */
function referee(args) {
  const child = spawn(node22, args, { cwd: root, stdio: 'inherit' });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function reportExtensionScenarios(results, { label, scenarios, refereeSkips, passes }) {
  const failures = [];
  const rows = scenarios.map((scenario) => {
    const result = results.get(scenario);
    if (!result) {
      failures.push(`${scenario}: did not run`);
      return [scenario, '-', '-', '-', '-', '-', '-', 'MISSING'];
    }
    const { counts, total } = result;
    const allowed = [...passes, ...(refereeSkips.has(scenario) ? ['SKIPPED'] : [])];
    const bad = result.problems.filter((p) => !allowed.includes(p.status));
    for (const p of bad)
      failures.push(`${scenario}: ${p.status} ${p.id}${p.errorMessage ? ` — ${p.errorMessage}` : ''}`);
    const verdict = bad.length > 0 ? 'FAIL' : refereeSkips.has(scenario) ? 'skipped by the referee' : 'pass';
    return [scenario, total, ...STATUSES.map((s) => counts[s]), verdict];
  });
  const header = [`${label} scenario`, 'checks', ...STATUSES, 'verdict'];
  const table = [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
  const count = (verdict) => rows.filter((r) => r.at(-1) === verdict).length;
  const failed = scenarios.length - count('pass') - count('skipped by the referee');
  const summary = `${label}: ${count('pass')} passed, ${count('skipped by the referee')} skipped by the referee, ${failed} failed`;
  return { table, failures, summary, passed: count('pass'), failed };
}
// ----- end of the extensions step -----------------------------------------------------------------------------

// ----- through a gateway (--gateway) ------------------------------------------------------------------------------
// The tools, prompts and resources scenarios of each revision, run one by one against the gateway (the fixture
// mounted with prefix ''), at that revision: the referee speaks 2026-07-28 or the 2025 era to the gateway, which
// speaks 2026-07-28 to the fixture, so every input round crosses the eras (2025-era elicitation and sampling
// requests answered through the fixture's input_required, and the reverse). Left out, as docs/gateway.md says:
// completion-complete (completions of a mounted prompt or template are not relayed); the tasks scenarios that
// call a tool without task support and expect no task (tasks-lifecycle, tasks-dispatch-and-envelope,
// tasks-request-headers) or input rounds before the task (tasks-mrtr-composition): the gateway cannot see an
// upstream tool's task support, which the spec keeps off the wire, so it answers every call of a client that
// declared the extension with a task of its own; and the scenarios of the endpoint itself rather than of what it
// mounts (server-*, dns-rebinding-protection, caching, logging-set-level, ping), which the other runs cover.
const TOOLS_2026 = [
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-error',
  'tools-call-with-progress',
];
const RESOURCES_PROMPTS = [
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
];
const GATEWAY_SETS = [
  {
    label: 'gateway 2026-07-28',
    specVersion: '2026-07-28',
    force: false,
    scenarios: [
      ...TOOLS_2026,
      ...RESOURCES_PROMPTS,
      'sep-2164-resource-not-found',
      'input-required-result-basic-elicitation',
      'input-required-result-basic-sampling',
      'input-required-result-basic-list-roots',
      'input-required-result-request-state',
      'input-required-result-multiple-input-requests',
      'input-required-result-multi-round',
      'input-required-result-missing-input-response',
      'input-required-result-non-tool-request',
      'input-required-result-result-type',
      'input-required-result-unsupported-methods',
      'input-required-result-tampered-state',
      'input-required-result-capability-check',
      'input-required-result-ignore-extra-params',
      'input-required-result-validate-input',
    ],
    refereeSkips: new Set(),
    passes: ['SUCCESS', 'INFO'],
  },
  {
    label: 'gateway 2025-11-25',
    specVersion: '2025-11-25',
    force: false,
    scenarios: [
      ...TOOLS_2026,
      'tools-call-with-logging',
      'tools-call-sampling',
      'tools-call-elicitation',
      'elicitation-sep1034-defaults',
      'elicitation-sep1330-enums',
      ...RESOURCES_PROMPTS,
      'resources-subscribe',
      'resources-unsubscribe',
    ],
    refereeSkips: new Set(),
    passes: ['SUCCESS', 'INFO'],
  },
  {
    // The fixture's task tools reached through the gateway's own tasks (forced, as in the extensions step).
    label: 'gateway tasks extension',
    specVersion: '2026-07-28',
    force: true,
    scenarios: [
      'tasks-capability-negotiation',
      'tasks-mrtr-input',
      'tasks-request-state-removal',
      'tasks-required-task-error',
      'tasks-wire-fields',
    ],
    refereeSkips: new Set(),
    passes: ['SUCCESS', 'INFO'],
  },
];

/** Runs each scenario on its own at `specVersion` (`force`: even one the referee would skip at that version). */
async function runScenariosAt(url, outDir, { scenarios, specVersion, force }) {
  const cli = join(refereeDir, 'dist', 'index.js');
  const forced = force ? ['--force'] : [];
  for (const scenario of scenarios)
    await referee([
      cli,
      'server',
      '--url',
      url,
      '--scenario',
      scenario,
      '--spec-version',
      specVersion,
      ...forced,
      '-o',
      outDir,
    ]);
}

/** The fixture, and the gateway that mounts it (`examples/conformance/gateway.ts`), on free ports. */
async function startGatewayTarget() {
  const fixture = await startFixture();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const gateway = spawn(process.execPath, [join(root, 'build', 'examples', 'conformance', 'gateway.js')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), UPSTREAM_URL: fixture.url },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await waitUntilAnswering(url, gateway);
  } catch (error) {
    await Promise.all([stop(gateway), stop(fixture.child)]);
    throw error;
  }
  return { url, stop: () => Promise.all([stop(gateway), stop(fixture.child)]) };
}
// ----- end of the gateway step ----------------------------------------------------------------------------------

/** Starts one fixture process on a free port (or PORT) and waits until it answers; `env` adds to the environment. */
async function startFixture(env = {}, port) {
  port ??= Number(process.env.PORT) || (await freePort());
  const url = `http://127.0.0.1:${port}/mcp`;
  const child = spawn(process.execPath, [join(root, 'build', 'examples', 'conformance', 'main.js')], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  try {
    await waitUntilAnswering(url, child);
  } catch (error) {
    await stop(child);
    throw error;
  }
  return { child, url, origin: `http://127.0.0.1:${port}` };
}

/** Starts the fixture's task worker (`worker.js`) and resolves once it says it takes jobs. */
function startWorker(env) {
  const child = spawn(process.execPath, [join(root, 'build', 'examples', 'conformance', 'worker.js')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('The task worker did not say it was ready within 60 s')), 60_000);
    let seen = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      seen += chunk;
      if (!/ready/.test(seen)) return;
      clearTimeout(timer);
      resolve(child);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The task worker exited with ${code} before it was ready`));
    });
  });
}

/** `--tasks bullmq`: a web instance that queues task tools and a worker process that runs them, sharing Redis. */
async function startQueuedTarget() {
  const env = {
    MCP_TASKS: 'bullmq',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `nestjs-mcp-conformance:${randomBytes(8).toString('hex')}:`,
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
  };
  const worker = await startWorker(env);
  try {
    const fixture = await startFixture(env);
    console.log(`web instance ${fixture.url} queues task tools on BullMQ; worker process ${worker.pid} runs them`);
    return { url: fixture.url, stop: () => Promise.all([stop(fixture.child), stop(worker)]) };
  } catch (error) {
    await stop(worker);
    throw error;
  }
}

/**
 * What the referee runs against, and how to stop it: the server at MCP_URL (left alone), one fixture, or with
 * `--cluster N`, N fixtures sharing Redis behind a round-robin proxy (built from test/support by build:all).
 */
async function startTarget() {
  if (process.env.MCP_URL) return { url: process.env.MCP_URL, stop: async () => {} };
  if (queuedTasks) return startQueuedTarget();
  if (throughGateway) return startGatewayTarget();
  const clusterAt = process.argv.indexOf('--cluster');
  if (clusterAt < 0) {
    const fixture = await startFixture();
    return { url: fixture.url, stop: () => stop(fixture.child) };
  }
  const size = Number(process.argv[clusterAt + 1]) || 3;
  const env = {
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: `nestjs-mcp-conformance:${randomBytes(8).toString('hex')}:`,
    MCP_STATE_SECRET: randomBytes(32).toString('hex'),
  };
  const fixtures = [];
  const stopAll = () => Promise.all(fixtures.map((fixture) => stop(fixture.child)));
  try {
    for (let i = 0; i < size; i++) fixtures.push(await startFixture(env, await freePort()));
    const { RoundRobinProxy } = await import(
      pathToFileURL(join(root, 'build', 'test', 'support', 'round-robin-proxy.js')).href
    );
    const proxy = await RoundRobinProxy.start(fixtures.map((fixture) => fixture.origin));
    console.log(
      `${size} fixtures (${fixtures.map((f) => f.url).join(', ')}) behind a round-robin proxy at ${proxy.origin}/mcp, Redis ${env.REDIS_URL}`,
    );
    return {
      url: `${proxy.origin}/mcp`,
      stop: async () => {
        console.log(`requests per instance through the proxy: ${proxy.counts.join(', ')}`);
        await proxy.close();
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function main() {
  ensureReferee();
  if (process.argv.includes('--install-only')) return;
  if (!process.argv.includes('--no-build') && !process.env.MCP_URL) run(npm, ['run', '--silent', 'build:all']);
  // The pid too: CI starts several runs in the same millisecond.
  const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
  const outRoot = join(root, 'conformance-results', stamp);
  const extensionDir = (extension) => join(outRoot, extension.label.replace(' ', '-'));
  // Through a gateway, its scenario sets take the extensions' place.
  const extensions = throughGateway ? GATEWAY_SETS : EXTENSIONS;
  for (const extension of extensions) mkdirSync(extensionDir(extension), { recursive: true });

  const target = await startTarget();
  const statuses = new Map();
  try {
    const cli = join(refereeDir, 'dist', 'index.js');
    for (const requirements of requirementSets) {
      const outDir = join(outRoot, requirements);
      mkdirSync(outDir, { recursive: true });
      console.log(`\n=== conformance server --requirements ${requirements} ===`);
      const args = [
        cli,
        'server',
        '--url',
        target.url,
        '--requirements',
        requirements,
        '-o',
        outDir,
        '--expected-failures',
        baselineFor(requirements),
      ];
      statuses.set(requirements, await referee(args));
    }
    for (const extension of extensions) {
      const run = { specVersion: EXTENSIONS_SPEC_VERSION, force: true, ...extension };
      await runScenariosAt(target.url, extensionDir(extension), run);
    }
  } finally {
    await target.stop();
  }

  const failures = [];
  let passed = 0;
  let failed = 0;
  for (const requirements of requirementSets) {
    const outDir = join(outRoot, requirements);
    const result = report(
      readResults(outDir),
      readRequirements(requirements),
      readBaseline(baselineFor(requirements)),
      GATED_PENDING.has(requirements),
      stateful && requirements === '2025-11-25',
    );
    writeFileSync(join(outDir, 'summary.md'), `${result.table}\n\n${result.summary}\n`);
    console.log(`\n## --requirements ${requirements}\n\n${result.table}\n\n${result.summary}\nResults: ${outDir}`);
    const status = statuses.get(requirements);
    if (status !== 0) failures.push(`${requirements}: the referee exited with ${status}`);
    failures.push(...result.failures.map((f) => `${requirements}: ${f}`));
    passed += result.passed;
    failed += result.failed;
  }
  for (const extension of extensions) {
    const dir = extensionDir(extension);
    const verdict = reportExtensionScenarios(readResults(dir), extension);
    writeFileSync(join(dir, 'summary.md'), `${verdict.table}\n\n${verdict.summary}\n`);
    console.log(
      `\n## ${extension.label} (${extension.specVersion ?? `${EXTENSIONS_SPEC_VERSION}, forced`})\n\n${verdict.table}\n\n${verdict.summary}\nResults: ${dir}`,
    );
    failures.push(...verdict.failures.map((f) => `${extension.label}: ${f}`));
    passed += verdict.passed;
    failed += verdict.failed;
  }
  const closing = throughGateway
    ? `Scenarios: ${passed} passed, ${failed} failed (tools, prompts, resources and tasks of ${REQUIREMENT_SETS.join(' and ')}, through a gateway)`
    : `Scenarios: ${passed} passed, ${failed} failed (required and pending, ${REQUIREMENT_SETS.join(' and ')}; the tasks and skills extensions)`;
  if (failures.length > 0) {
    console.error(`\nConformance FAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
    console.log(closing);
    process.exit(1);
  }
  console.log('\nConformance passed: every gated check of both sets is SUCCESS (or INFO), or named in its baseline.');
  console.log(closing);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
