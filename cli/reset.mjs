#!/usr/bin/env node
// `npm run reset`: forgets everything `npm run dev` stored locally — runs (Durable Objects), the run index,
// saved demonstrations, the loaded snapshot corpus and vectors (D1), rate-limit buckets and the Cache API — by
// removing wrangler's local state folder. The next `npm run dev` starts empty and reloads the snapshot on first use.
//
// A server still using the folder would answer every request with an error once its files are gone, so reset refuses
// while one runs (naming it), or with --stop stops it first.
//   npm run reset [-- --persist-to <dir>] [-- --stop]
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagValues } from './config-check.mjs';
import { describeServer, serverUsing } from './dev-lock.mjs';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const persistTo = flagValues(args, '--persist-to')[0];
const state = persistTo ? resolve(process.cwd(), persistTo) : resolve(root, '.wrangler/state');
const unknown = args.filter((a, i) => a !== '--stop' && !a.startsWith('--persist-to') && args[i - 1] !== '--persist-to');
if (unknown.length) {
  console.error(`npm run reset: unknown argument ${unknown[0]}; usage: npm run reset [-- --persist-to <dir>] [--stop]`);
  process.exit(2);
}

/** How long a stopped server gets to end wrangler and workerd (it gives them 4 s, then SIGKILL). */
const STOP_WAIT_MS = 10_000;

/** Ended: no such process, or a zombie whose parent has not collected it yet (it holds no port and no files). */
const gone = (pid) => {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code !== 'EPERM';
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
  } catch {
    return false;
  }
};

/** SIGTERM to the server (which stops its wrangler group), then SIGKILL to both if it has not ended in time. */
const stop = async (server) => {
  process.kill(server.pid, 'SIGTERM');
  const until = Date.now() + STOP_WAIT_MS;
  while (!gone(server.pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  if (gone(server.pid)) return;
  console.log(`npm run dev did not stop within ${STOP_WAIT_MS / 1000} s; killing it and its wrangler`);
  for (const target of [server.group && -server.group, server.pid].filter(Boolean)) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // already gone
    }
  }
};

const server = existsSync(state) ? serverUsing(state) : undefined;
if (server && !args.includes('--stop')) {
  console.error(`npm run reset: not resetting: ${state} is in use by ${describeServer(server)}.`);
  console.error(`Stop it first (Ctrl-C in its terminal, or kill ${server.pid}), or stop it and reset in one go: npm run reset -- --stop${persistTo ? ` --persist-to ${persistTo}` : ''}`);
  process.exit(1);
}
if (server) {
  console.log(`stopping ${describeServer(server)}`);
  await stop(server);
}
if (!existsSync(state)) {
  console.log(`nothing to reset: ${state} does not exist`);
} else {
  rmSync(state, { recursive: true, force: true });
  console.log(`removed ${state}${server ? '; start npm run dev again' : ''}`);
}
