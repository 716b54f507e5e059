#!/usr/bin/env node
// `npm run deploy -- --env <name>`: checks, before anything is bundled or uploaded, the environment's vars (the
// Worker's own schema), that every var finds the binding it needs, that live evidence names the operator's contact,
// and that its D1 database is a real one (not wrangler.toml's placeholder id); then `wrangler deploy` (whose [build]
// step regenerates the data bundle). Secrets set with `wrangler secret put` are not visible here, so an endpoint that
// would carry one (the model server's LLM_API_KEY, the collector's headers) must be https whether or not it is set.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { checkOrExit, collectVars, configPath, environmentNames, parsedConfig } from './config-check.mjs';
import { bindingLines, bindingReport, contactLines, placeholderLines, placeholderReport, summaryLine } from './deploy-resources.mjs';

const args = process.argv.slice(2);
const what = 'npm run deploy';
const dryRun = args.includes('--dry-run');
await checkOrExit(args, { local: false, what });

const { unstable_readConfig } = await import('wrangler');
const { env, vars } = await collectVars(args, { local: false });
const file = configPath(args);
const configFile = basename(file);
const config = unstable_readConfig({ config: file, env });
const { wikimediaHosts } = await tsImport('../src/evidence/live/index.ts', import.meta.url);
const { credentialsInClear } = await tsImport('../src/config-credentials.ts', import.meta.url);
const parsed = await parsedConfig(vars);

const bindings = bindingReport(config, env, vars);
// A dry run goes on past what only stops a real deploy, unless a binding is missing.
const goesOn = dryRun && !bindings.missing.length;
const contact = contactLines(parsed, wikimediaHosts(parsed), { what, env, configFile, dryRun: goesOn });
const placeholders = placeholderLines(placeholderReport(config, env), { what, dryRun: goesOn });
// Visible secrets were checked with the rest of the vars (checkOrExit); these are the endpoints a secret may reach.
const inClear = credentialsInClear(parsed, { secretsUnseen: true }).map((p) => `${what}: ${goesOn ? 'warning' : 'not deploying'}: ${p.variable}: ${p.message}`);
// The top level is `npm run dev`'s offline configuration (the snapshot, no model): deploying it serves the toy world.
const topLevel = env
  ? []
  : [
      `${what}: ${goesOn ? 'warning' : 'not deploying'}: no --env given, and ${configFile}'s top level is the local configuration of npm run dev (the bundled snapshot, no model).`,
      `  Name a deploy environment: ${what} -- --env ${environmentNames(readFileSync(file, 'utf8')).join(' | ')}`,
    ];

console.error(summaryLine(config, env, vars, { what }));
for (const line of [...topLevel, ...bindingLines(bindings, { what, env, configFile }), ...contact, ...placeholders, ...inClear]) console.error(line);
// A missing binding fails the Worker's first request, so even a dry run stops; the rest only stop a real deploy
// (a placeholder id or a missing contact can only fail halfway or get the deploy blocked by Wikimedia; a secret in
// clear would stop the Worker at its first request).
if (bindings.missing.length) process.exit(1);
if (!dryRun && (topLevel.length || contact.length || placeholders.length || inClear.length)) process.exit(1);

const child = spawn('npx', ['wrangler', 'deploy', ...args], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 1));
