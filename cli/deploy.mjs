#!/usr/bin/env node
// `npm run deploy -- --env <variant>`: checks the environment's configuration, then `wrangler deploy` (whose [build]
// step regenerates the data bundle). Secrets set with `wrangler secret put` are not visible here and not checked.
import { spawn } from 'node:child_process';
import { checkOrExit } from './config-check.mjs';

const args = process.argv.slice(2);
await checkOrExit(args, { local: false, what: 'npm run deploy' });
const child = spawn('npx', ['wrangler', 'deploy', ...args], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 1));
