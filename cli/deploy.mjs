#!/usr/bin/env node
// `npm run deploy -- --env <variant>`: checks the environment's configuration and that its D1 database is a real one
// (not wrangler.toml's placeholder id), then `wrangler deploy` (whose [build] step regenerates the data bundle).
// Secrets set with `wrangler secret put` are not visible here and not checked.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkOrExit, envOf, flagValues } from './config-check.mjs';
import { placeholderLines, placeholderReport } from './deploy-resources.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const what = 'npm run deploy';
await checkOrExit(args, { local: false, what });

const { unstable_readConfig } = await import('wrangler');
const env = envOf(args);
const config = unstable_readConfig({ config: resolve(ROOT, flagValues(args, '--config')[0] ?? 'wrangler.toml'), env });
const dryRun = args.includes('--dry-run');
const lines = placeholderLines(placeholderReport(config, env), { what, dryRun });
for (const line of lines) console.error(line);
// Before anything is bundled or uploaded: a real deploy with a placeholder id can only fail halfway.
if (lines.length && !dryRun) process.exit(1);

const child = spawn('npx', ['wrangler', 'deploy', ...args], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 1));
