// Starts `npm run dev` (cli/dev.mjs → wrangler dev --local) on free ports with its own state folder, for the Node
// tests and the benches, and stops it with everything it started afterwards.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

const tryPort = (port) =>
  new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(port, '127.0.0.1', () => {
      const { port: bound } = s.address();
      s.close(() => ok(bound));
    });
  });

/** Ports this process handed out from PORT_RANGE: a range has no OS to keep two callers apart. */
const handedOut = new Set();

/**
 * A free port on 127.0.0.1: any the OS offers, or with `PORT_RANGE=9250-9299` one from that range (on a shared
 * machine where each user keeps to a range).
 */
export const freePort = async () => {
  const range = /^(\d+)-(\d+)$/.exec(process.env.PORT_RANGE ?? '');
  if (!range) return tryPort(0);
  const [lo, hi] = [Number(range[1]), Number(range[2])];
  for (let port = lo; port <= hi; port++) {
    if (handedOut.has(port)) continue;
    const bound = await tryPort(port).catch(() => undefined);
    if (bound) {
      handedOut.add(bound);
      return bound;
    }
  }
  throw new Error(`no free port left in PORT_RANGE=${process.env.PORT_RANGE}`);
};

/**
 * @param {{ vars?: Record<string, string>, args?: string[], stateDir?: string, timeoutMs?: number, ports?: [number, number] }} [options]
 *   vars: `--var KEY:VALUE` pairs; args: further wrangler arguments; stateDir: where the fresh `--persist-to`
 *   folder is made (default the OS temp dir); ports: HTTP and inspector port (default two free ones), for a machine
 *   where each user keeps to a range.
 */
export const startDev = async ({ vars = {}, args = [], stateDir = tmpdir(), timeoutMs = 90_000, ports } = {}) => {
  const [port, inspector] = ports ?? [await freePort(), await freePort()];
  const persist = mkdtempSync(join(stateDir, 'humaniq-dev-'));
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}:${v}`]);
  const child = spawn(
    process.execPath,
    ['cli/dev.mjs', '--port', String(port), '--inspector-port', String(inspector), '--persist-to', persist, ...varArgs, ...args],
    { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  );
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));

  // cli/dev.mjs ends wrangler's own process group on SIGTERM (SIGKILL after 4 s); only if it has not ended by then
  // are both groups killed here (wrangler's group id is in the state folder's dev-server.json).
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      let group;
      try {
        group = JSON.parse(readFileSync(join(persist, 'dev-server.json'), 'utf8')).group;
      } catch {
        // not written yet, or already removed
      }
      const ended = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const timedOut = await Promise.race([ended.then(() => false), new Promise((r) => setTimeout(() => r(true), 8_000))]);
      if (timedOut) {
        for (const pgid of [child.pid, group].filter(Boolean)) {
          try {
            process.kill(-pgid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    }
    rmSync(persist, { recursive: true, force: true });
  };

  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() - started > timeoutMs || child.exitCode !== null) {
      await stop();
      throw new Error(`npm run dev did not answer /healthz within ${timeoutMs} ms:\n${log.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, port, pid: child.pid, stateFolder: persist, exited: () => child.exitCode !== null || child.signalCode !== null, startupMs: Date.now() - started, log: () => log, stop };
};
