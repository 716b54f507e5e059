#!/usr/bin/env node
// `npm run dev`: the Worker on http://127.0.0.1:8787, offline, no Cloudflare account.
// Extra arguments go to wrangler, e.g. `npm run dev -- --var LLM_PROVIDER:openai --var LLM_BASE_URL:http://127.0.0.1:8000/v1`.
import { spawn } from 'node:child_process';
import { checkOrExit } from './config-check.mjs';

const args = process.argv.slice(2);
await checkOrExit(args, { local: true, what: 'npm run dev' });
const has = (flag) => args.some((a) => a === flag || a.startsWith(`${flag}=`));
const wranglerArgs = ['wrangler', 'dev', '--local', ...(has('--ip') ? [] : ['--ip', '127.0.0.1']), ...(has('--port') ? [] : ['--port', '8787']), ...args];

const child = spawn('npx', wranglerArgs, {
  stdio: 'inherit',
  env: {
    ...process.env,
    // Offline: no metrics upload, no Request.cf lookup (it would only print an ENOTFOUND warning).
    WRANGLER_SEND_METRICS: 'false',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
