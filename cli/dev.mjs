#!/usr/bin/env node
// `npm run dev`: the Worker on http://127.0.0.1:8787, offline, no Cloudflare account.
// Extra arguments go to wrangler, e.g. `npm run dev -- --var LLM_PROVIDER:openai --var LLM_BASE_URL:http://127.0.0.1:8000/v1`.
//
// Stopping: wrangler runs `node wrangler-dist/cli.js` under its bin wrapper, and that starts workerd; stopping the
// wrapper alone used to leave workerd serving the port. So wrangler starts in a process group of its own (detached),
// and SIGINT/SIGTERM here (or to npm, noticed when npm's script shell goes) go to the whole group, then SIGKILL after
// a grace.
// Its own group means the terminal's Ctrl-C reaches only npm and this script, which pass it on; it also means
// wrangler must not read the terminal (a background group that does is stopped by the kernel), so its keyboard
// shortcuts are off.
//
// Surviving clients (issue 22): wrangler before 4.131 ended `wrangler dev` whenever its proxy lost a connection to
// the Worker; the fix is upstream. This file adds only a last line of defence: if wrangler exits on its own after it
// had been up a while, it is started again (a few times, with a line saying so). An exit caused by a signal — also
// the wrapper's 128+N exit code for one — is somebody stopping it, never a crash, and is not restarted.
//
// The state folder holds dev-server.json while the server runs, so `npm run reset` can see who uses it.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkOrExit, flagValues } from './config-check.mjs';
import { claimState } from './dev-lock.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
await checkOrExit(args, { local: true, what: 'npm run dev' });
const has = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const port = Number(flagValues(args, '--port')[0] ?? 8787);
const ip = flagValues(args, '--ip')[0] ?? '127.0.0.1';
const wranglerArgs = ['dev', '--local', '--show-interactive-dev-session=false', ...(has('--ip') ? [] : ['--ip', ip]), ...(has('--port') ? [] : ['--port', String(port)]), ...args];
// Where wrangler keeps local state: --persist-to (from the working directory) or .wrangler/state beside wrangler.toml.
const persistTo = flagValues(args, '--persist-to')[0];
const stateDir = persistTo ? resolve(process.cwd(), persistTo) : resolve(ROOT, '.wrangler/state');
const WRANGLER = resolve(ROOT, 'node_modules/wrangler/bin/wrangler.js');

/** A start that lived this long was a working server (not a bad config or a taken port), so a later exit is a crash. */
const UP_LONG_ENOUGH_MS = 30_000;
const MAX_RESTARTS = 3;
/** How long wrangler gets to stop workerd after SIGINT/SIGTERM before the group gets SIGKILL. */
const GRACE_MS = 4_000;
/** Signals that mean somebody stopped the process, and the exit codes (128 + N) wrappers turn them into. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL', 'SIGQUIT'];
const STOP_CODES = new Set(STOP_SIGNALS.map((s) => 128 + constants.signals[s]));

const lock = claimState(stateDir, { url: `http://${ip}:${port}`, port });

/** Sends a signal to wrangler's whole process group (wrangler, its CLI process and workerd); false when none is left. */
const signalGroup = (pid, signal) => {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
};

let child;
let stopping = false;
let restarts = 0;
const start = () => {
  const startedAt = Date.now();
  child = spawn(process.execPath, [WRANGLER, ...wranglerArgs], {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      // Offline: no metrics upload, no Request.cf lookup (it would only print an ENOTFOUND warning).
      WRANGLER_SEND_METRICS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      // wrangler 4.164 records a trace of every invocation into a SQLite store of its own in the state folder (its
      // local "observability"): on disk, about 15 commits per agent run that nobody reads here. Off unless asked for.
      X_LOCAL_OBSERVABILITY: process.env.X_LOCAL_OBSERVABILITY ?? 'false',
    },
  });
  lock.update({ group: child.pid });
  const group = child.pid;
  child.on('exit', (code, signal) => {
    // Whatever of the group outlived wrangler (a workerd whose parent was killed) would keep the port.
    signalGroup(group, 'SIGKILL');
    const stoppedBySomeone = stopping || STOP_SIGNALS.includes(signal) || STOP_CODES.has(code);
    const crashed = !stoppedBySomeone && code !== 0 && Date.now() - startedAt > UP_LONG_ENOUGH_MS;
    if (crashed && restarts < MAX_RESTARTS) {
      restarts += 1;
      console.error(`npm run dev: wrangler exited (${signal ?? `code ${code}`}) while serving; restarting it (${restarts} of ${MAX_RESTARTS})`);
      start();
      return;
    }
    if (!stopping && stoppedBySomeone) console.error(`npm run dev: wrangler was stopped (${signal ?? `code ${code}`}); stopping too`);
    process.exit(stopping ? 0 : (code ?? 1));
  });
};
start();
const stop = (signal) => {
  if (stopping) return;
  stopping = true;
  signalGroup(child.pid, signal);
  setTimeout(() => signalGroup(child.pid, 'SIGKILL'), GRACE_MS).unref();
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(signal === 'SIGHUP' ? 'SIGTERM' : signal));
// npm passes SIGTERM/SIGINT to the shell it runs this script in, and that shell dies without passing them on: under
// npm, losing that parent means npm was stopped. (Started directly, the parent may come and go: no watch.)
if (process.env.npm_lifecycle_event) {
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && stop('SIGTERM'), 250).unref();
}
