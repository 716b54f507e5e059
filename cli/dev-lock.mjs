// Who uses a local state folder: `npm run dev` writes dev-server.json into it while it runs (its pid, wrangler's
// process group, its URL), and `npm run reset` reads it before deleting anything. A file left by a server that died
// without cleaning up names a pid that is gone (or now another program), so it is ignored.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LOCK = 'dev-server.json';

/** Whether `pid` is a live `npm run dev` (cli/dev.mjs): on Linux its command line says so; elsewhere, alive is enough. */
const isDevServer = (pid) => {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== 'EPERM') return false;
  }
  if (!existsSync('/proc/self/stat')) return true;
  try {
    // A zombie (ended, not yet collected by its parent) has an empty command line.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dev.mjs');
  } catch {
    return false;
  }
};

/**
 * The server using `stateDir`, if one is running: `{pid, group, url, port, startedAt}`; undefined when the folder has
 * no lock or its server is gone.
 */
export const serverUsing = (stateDir) => {
  const file = join(stateDir, LOCK);
  if (!existsSync(file)) return undefined;
  try {
    const lock = JSON.parse(readFileSync(file, 'utf8'));
    return Number.isInteger(lock.pid) && isDevServer(lock.pid) ? lock : undefined;
  } catch {
    return undefined; // half-written or not ours: nobody we can name
  }
};

/** "npm run dev (pid 123, http://127.0.0.1:8787, since 14:02:11)" */
export const describeServer = (s) => `npm run dev (pid ${s.pid}, ${s.url}, since ${new Date(s.startedAt).toLocaleTimeString()})`;

/**
 * Marks `stateDir` as used by this process until it exits; exits 1 when another live server already uses it (two
 * workerd processes on one SQLite state corrupt each other's view of it).
 * @returns {{ update(fields: object): void }} to record wrangler's process group once it is started
 */
export const claimState = (stateDir, { url, port }) => {
  const other = serverUsing(stateDir);
  if (other && other.pid !== process.pid) {
    console.error(`npm run dev: ${stateDir} is already used by ${describeServer(other)}.`);
    console.error('Stop that one first, or give this one its own folder: npm run dev -- --persist-to <dir> --port <port>');
    process.exit(1);
  }
  mkdirSync(stateDir, { recursive: true });
  const file = join(stateDir, LOCK);
  let lock = { pid: process.pid, url, port, startedAt: Date.now() };
  const write = () => writeFileSync(file, `${JSON.stringify(lock)}\n`);
  write();
  process.on('exit', () => {
    // Only our own lock: reset --stop may already have removed the folder, or another server taken it since.
    try {
      if (JSON.parse(readFileSync(file, 'utf8')).pid === process.pid) rmSync(file, { force: true });
    } catch {
      // gone already
    }
  });
  // Deleted under a running server, the state answers every new Durable Object with an error (the Worker says so
  // in its 503); the log says it once too.
  const watch = setInterval(() => {
    if (existsSync(file)) return;
    clearInterval(watch);
    console.error(`npm run dev: ${stateDir} was removed while this server runs; requests that open storage now fail. Stop npm run dev and start it again.`);
  }, 1_000);
  watch.unref();
  return {
    update: (fields) => {
      lock = { ...lock, ...fields };
      if (existsSync(stateDir)) write();
    },
  };
};
