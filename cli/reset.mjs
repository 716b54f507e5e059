#!/usr/bin/env node
// `npm run reset`: forgets everything `npm run dev` stored locally — runs (Durable Objects), the run index,
// saved demonstrations, the loaded snapshot corpus and vectors (D1), rate-limit buckets and the Cache API — by
// removing wrangler's local state folder. The next `npm run dev` starts empty and reloads the snapshot on first use.
import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const state = resolve(root, process.argv[2] === '--persist-to' && process.argv[3] ? process.argv[3] : '.wrangler/state');
if (!existsSync(state)) {
  console.log(`nothing to reset: ${state} does not exist`);
} else {
  rmSync(state, { recursive: true, force: true });
  console.log(`removed ${state}; stop npm run dev first if it was running, then start it again`);
}
