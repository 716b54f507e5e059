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
//
// The user's port is served by cli/dev-front.mjs, in this process, and wrangler listens on a loopback port of its own
// (dev-server.json names it `upstream`): when workerd dies mid-request, wrangler answers with its stack, and the front
// turns that into a JSON error (issue 41). Wrangler's output names its own port; it is printed with the user's.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkOrExit, flagValues } from './config-check.mjs';
import { startFront } from './dev-front.mjs';
import { claimState } from './dev-lock.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
await checkOrExit(args, { local: true, what: 'npm run dev' });
const has = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const port = Number(flagValues(args, '--port')[0] ?? 8787);
const ip = flagValues(args, '--ip')[0] ?? '127.0.0.1';
// wrangler's own https (not used here) cannot sit behind a plain-HTTP front: it then keeps the user's port itself.
const fronted = !flagValues(args, '--local-protocol').includes('https');
/** `args` without `--flag value` / `--flag=value` for each of `flags`. */
const withoutFlags = (list, flags) => list.filter((a, i) => !flags.some((f) => a === f || a.startsWith(`${f}=`) || (list[i - 1] === f && i > 0)));
/** A loopback port free now, for wrangler behind the front (the same one across restarts). */
const loopbackPort = () =>
  new Promise((ok, fail) => {
    const s = createServer().once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port: free } = s.address();
      s.close(() => ok(free));
    });
  });
const upstream = fronted ? { host: '127.0.0.1', port: await loopbackPort() } : undefined;
const wranglerArgs = upstream
  ? ['dev', '--local', '--show-interactive-dev-session=false', ...withoutFlags(args, ['--ip', '--port']), '--ip', upstream.host, '--port', String(upstream.port)]
  : ['dev', '--local', '--show-interactive-dev-session=false', ...(has('--ip') ? [] : ['--ip', ip]), ...(has('--port') ? [] : ['--port', String(port)]), ...args];
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
if (upstream) {
  lock.update({ upstream: `http://${upstream.host}:${upstream.port}` });
  await startFront({ ip, port, upstream }).catch((err) => {
    console.error(`npm run dev: cannot listen on ${ip}:${port} (${err.code ?? err.message})${err.code === 'EADDRINUSE' ? ': another server uses that port; stop it or choose another with npm run dev -- --port <port>' : ''}`);
    process.exit(1);
  });
}

// A reader that went away (`npm run dev | head`) must not end the server over a log line.
for (const out of [process.stdout, process.stderr]) out.on('error', () => {});

/** Passes wrangler's output on line by line, naming the user's port where wrangler names its own. */
const relay = (from, to) => {
  const own = upstream && new RegExp(`\\b(?:127\\.0\\.0\\.1|localhost):${upstream.port}\\b`, 'g');
  const shown = (text) => (own ? text.replace(own, `${ip}:${port}`) : text);
  let pending = '';
  let timer;
  const flush = () => {
    clearTimeout(timer);
    if (pending) to.write(shown(pending));
    pending = '';
  };
  from.setEncoding('utf8');
  from.on('data', (text) => {
    pending += text;
    const cut = pending.lastIndexOf('\n') + 1;
    if (cut) {
      to.write(shown(pending.slice(0, cut)));
      pending = pending.slice(cut);
    }
    clearTimeout(timer);
    if (pending) timer = setTimeout(flush, 50); // a prompt or a line still being written
  });
  from.on('end', flush);
};

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
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      // Piped through relay(), wrangler would drop its colours; a terminal here still gets them.
      ...(process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {}),
      // Offline: no metrics upload, no Request.cf lookup (it would only print an ENOTFOUND warning).
      WRANGLER_SEND_METRICS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    },
  });
  lock.update({ group: child.pid });
  const group = child.pid;
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  const outputDone = new Promise((ok) => child.once('close', ok));
  child.on('exit', async (code, signal) => {
    // Whatever of the group outlived wrangler (a workerd whose parent was killed) would keep the port.
    signalGroup(group, 'SIGKILL');
    await Promise.race([outputDone, new Promise((ok) => setTimeout(ok, 1_000))]); // wrangler's last lines first
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
