// @module-tag slow
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startDev, type DevServer } from '../support/dev-server.mjs';
import { startStub, type Stub } from '../support/openai-stub.mjs';

/**
 * Issue 34: `npm run dev` stops with its whole process tree when asked (by a signal to npm, to cli/dev.mjs, or to
 * wrangler alone), and `npm run reset` never deletes the state under a running server. What is asserted is what a
 * user notices: the port is free again, no workerd is left, the runs are still there.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every process below `pid`, from /proc: [pid, command name, command line]. */
const descendants = (pid: number): Array<{ pid: number; comm: string; cmdline: string }> => {
  const children = new Map<number, number[]>();
  const info = new Map<number, { comm: string; cmdline: string }>();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
      info.set(Number(entry), { comm, cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // ended while we looked
    }
  }
  const out: Array<{ pid: number; comm: string; cmdline: string }> = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push({ pid: c, ...info.get(c)! });
      walk(c);
    }
  };
  walk(pid);
  return out;
};

/** A process that is gone or only a zombie waiting for its parent (it holds no port and runs nothing). */
const ended = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');
  } catch {
    return true;
  }
};

const portFree = (port: number) =>
  new Promise<boolean>((ok) => {
    const s = createServer();
    s.once('error', () => ok(false));
    s.listen(port, '127.0.0.1', () => s.close(() => ok(true)));
  });

/** Polls until `check` holds or `ms` pass (a generous bound for a shared machine; the outcome is asserted, not the time). */
const eventually = async (check: () => boolean | Promise<boolean>, ms = 20_000) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await wait(200);
  }
  return check();
};

const reset = (...args: string[]) =>
  spawnSync(process.execPath, ['cli/reset.mjs', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1' } });

const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

describe('npm run dev stops cleanly', () => {
  it('SIGTERM to npm frees the port and leaves no wrangler or workerd; a folder deleted under it is said in our words', async () => {
    const [port, inspector] = [await freePort(), await freePort()];
    const state = mkdtempSync(join(tmpdir(), 'humaniq-npm-dev-'));
    cleanup.push(() => rmSync(state, { recursive: true, force: true }));
    const npm = spawn('npm', ['run', 'dev', '--', '--port', String(port), '--inspector-port', String(inspector), '--persist-to', state], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let log = '';
    npm.stdout!.on('data', (d) => (log += d));
    npm.stderr!.on('data', (d) => (log += d));
    cleanup.push(() => npm.exitCode === null && descendants(npm.pid!).forEach((p) => process.kill(p.pid, 'SIGKILL')));
    const up = await eventually(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok === true, 90_000);
    expect(up, log.slice(-2_000)).toBe(true);
    const tree = descendants(npm.pid!);
    const workerd = tree.filter((p) => p.comm === 'workerd');
    expect(workerd.length, tree.map((p) => p.cmdline).join('\n')).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(state, 'dev-server.json'), 'utf8'))).toMatchObject({ url: `http://127.0.0.1:${port}`, port });

    // The state folder removed under the running server: a request that opens a new Durable Object (a run's) says
    // why it fails.
    rmSync(state, { recursive: true, force: true });
    const res = await fetch(`http://127.0.0.1:${port}/v1/runs/${crypto.randomUUID()}`);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(res.status).toBe(503);
    expect(body.error.code).toBe('storage_unavailable');
    expect(body.error.message).toContain('state folder (.wrangler/state, or the --persist-to folder) was removed while it ran');
    expect(await eventually(() => log.includes('was removed while this server runs'))).toBe(true);

    npm.kill('SIGTERM');
    expect(await eventually(() => portFree(port)), log.slice(-2_000)).toBe(true);
    expect(await eventually(() => tree.every((p) => ended(p.pid)))).toBe(true);
    expect(await eventually(() => npm.exitCode !== null || npm.signalCode !== null)).toBe(true);
  }, 150_000);

  it('SIGTERM to wrangler alone ends npm run dev and its workerd, and is not restarted as a crash', async () => {
    const dev = await startDev({ timeoutMs: 110_000 });
    cleanup.push(() => dev.stop());
    const tree = descendants(dev.pid);
    const wrangler = tree.find((p) => /wrangler-dist\/cli\.js dev/.test(p.cmdline));
    expect(wrangler, tree.map((p) => p.cmdline).join('\n')).toBeDefined();
    expect(tree.some((p) => p.comm === 'workerd')).toBe(true);
    process.kill(wrangler!.pid, 'SIGTERM');
    expect(await eventually(() => dev.exited()), dev.log().slice(-2_000)).toBe(true);
    expect(dev.log()).toContain('npm run dev: wrangler was stopped');
    expect(dev.log()).not.toContain('restarting it');
    expect(await eventually(() => portFree(dev.port))).toBe(true);
    expect(await eventually(() => tree.every((p) => ended(p.pid)))).toBe(true);
  }, 150_000);
});

describe('npm run reset and a running server', () => {
  let dev: DevServer;
  let stub: Stub;

  it('refuses while the server uses the folder, naming it, and the server keeps its runs', async () => {
    stub = await startStub();
    cleanup.push(() => stub.close());
    dev = await startDev({ vars: { LLM_PROVIDER: 'openai', LLM_BASE_URL: stub.url, LLM_MODEL: 'stub' }, timeoutMs: 110_000 });
    cleanup.push(() => dev.stop());
    const asked = await fetch(`${dev.url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who wrote Hamlet?' }) });
    const run = (await asked.json()) as { runId: string; status: string };
    expect(asked.status).toBe(200);

    const refused = reset('--persist-to', dev.stateFolder);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`npm run reset: not resetting: ${dev.stateFolder} is in use by npm run dev (pid ${dev.pid}, ${dev.url}`);
    expect(refused.stderr).toContain(`npm run reset -- --stop --persist-to ${dev.stateFolder}`);

    expect(existsSync(join(dev.stateFolder, 'v3'))).toBe(true);
    const again = await fetch(`${dev.url}/v1/runs/${run.runId}`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { status: string }).status).toBe(run.status);
    const another = await fetch(`${dev.url}/v1/answer`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'Who wrote Macbeth?' }) });
    expect(another.status).toBe(200);
  }, 150_000);

  it('with --stop ends the server first, then removes the folder', async () => {
    const tree = descendants(dev.pid);
    const stopped = reset('--stop', '--persist-to', dev.stateFolder);
    expect(stopped.status, stopped.stderr).toBe(0);
    // reset waited for the server's end (the test's event loop, blocked meanwhile, hears of it now).
    expect(stopped.stdout).toContain(`stopping npm run dev (pid ${dev.pid}`);
    expect(stopped.stdout).toContain(`removed ${dev.stateFolder}`);
    expect(stopped.stdout).not.toContain('did not stop');
    expect(existsSync(dev.stateFolder)).toBe(false);
    expect(await portFree(dev.port)).toBe(true);
    expect(await eventually(() => dev.exited())).toBe(true);
    expect(await eventually(() => tree.every((p) => ended(p.pid)))).toBe(true);
  }, 60_000);

  it('a folder without a live server is reset at once; an unknown argument is refused', () => {
    const folder = mkdtempSync(join(tmpdir(), 'humaniq-reset-'));
    const ok = reset('--persist-to', folder);
    expect(ok.status).toBe(0);
    expect(existsSync(folder)).toBe(false);
    expect(reset('--force').stderr).toContain('npm run reset: unknown argument --force');
  });
});
