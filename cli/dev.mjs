#!/usr/bin/env node
// `npm run dev`: the Worker on http://127.0.0.1:8787, offline, no Cloudflare account.
// Extra arguments go to wrangler, e.g. `npm run dev -- --var LLM_PROVIDER:openai --var LLM_BASE_URL:http://127.0.0.1:8000/v1`.
//
// Surviving clients (issue 22): wrangler before 4.131 ended `wrangler dev` whenever its proxy lost a connection to
// the Worker, which any client can cause by closing a socket mid-body. The fix is upstream (wrangler ≥ 4.131 logs
// "the dev server continues" and keeps serving), so package.json pins a wrangler with it. This file adds only a
// last line of defence: if wrangler still exits on its own after it had been up a while, it is started again
// (a few times, with a line saying so), because a local server that silently vanishes mid-benchmark costs more
// than a restart; runs resume from their Durable Object's stored steps.
import { spawn } from 'node:child_process';
import { checkOrExit } from './config-check.mjs';

const args = process.argv.slice(2);
await checkOrExit(args, { local: true, what: 'npm run dev' });
const has = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const wranglerArgs = ['wrangler', 'dev', '--local', ...(has('--ip') ? [] : ['--ip', '127.0.0.1']), ...(has('--port') ? [] : ['--port', '8787']), ...args];

/** A start that lived this long was a working server (not a bad config or a taken port), so a later exit is a crash. */
const UP_LONG_ENOUGH_MS = 30_000;
const MAX_RESTARTS = 3;

let child;
let stopping = false;
let restarts = 0;
const start = () => {
  const startedAt = Date.now();
  child = spawn('npx', wranglerArgs, {
    stdio: 'inherit',
    env: {
      ...process.env,
      // Offline: no metrics upload, no Request.cf lookup (it would only print an ENOTFOUND warning).
      WRANGLER_SEND_METRICS: 'false',
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    },
  });
  child.on('exit', (code, signal) => {
    const stoppedByUser = stopping || ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL'].includes(signal);
    const crashed = !stoppedByUser && code !== 0 && Date.now() - startedAt > UP_LONG_ENOUGH_MS;
    if (crashed && restarts < MAX_RESTARTS) {
      restarts += 1;
      console.error(`npm run dev: wrangler exited (${signal ?? `code ${code}`}) while serving; restarting it (${restarts} of ${MAX_RESTARTS})`);
      start();
      return;
    }
    process.exit(code ?? 0);
  });
};
start();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    child.kill(signal);
  });
}
