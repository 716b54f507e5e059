#!/usr/bin/env node
// `npm run bench:bundle`: the size of the Worker upload per deploy environment, raw and gzip, from
// `wrangler deploy --dry-run` (what wrangler itself reports, and our own sum of the files it wrote, by kind).
// Reference: Cloudflare's Worker size limits, 3 MB gzip on the free plan and 10 MB on paid plans.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const FREE_PLAN_GZIP_KIB = 3 * 1024;
const envs = [...readFileSync(join(ROOT, 'wrangler.toml'), 'utf8').matchAll(/^\[env\.([a-z0-9_-]+)\]\s*$/gm)].map((m) => m[1]);
const out = mkdtempSync(join(tmpdir(), 'humaniq-bundle-'));
const kib = (n) => (n / 1024).toFixed(0).padStart(6);

const kindOf = (name) => (name.endsWith('.map') ? 'map' : name === 'index.js' ? 'js' : /wasm$/.test(name) ? 'wasm' : 'text');

console.log(`Worker upload per environment (KiB; source maps are uploaded but do not count against the limit)`);
console.log(`env          wrangler raw  wrangler gzip   js raw  js gzip  wasm raw  wasm gzip  text  free-plan use`);
for (const env of envs) {
  const dir = join(out, env);
  const run = spawnSync('npx', ['wrangler', 'deploy', '--dry-run', '--env', env, '--outdir', dir], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const text = `${run.stdout}\n${run.stderr}`;
  if (run.status !== 0) {
    console.error(`${env}: dry-run failed\n${text.slice(-1500)}`);
    process.exitCode = 1;
    continue;
  }
  const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(text);
  const sums = { js: [0, 0], wasm: [0, 0], text: [0, 0], map: [0, 0] };
  for (const name of readdirSync(dir)) {
    const bytes = readFileSync(join(dir, name));
    const s = sums[kindOf(name)];
    s[0] += bytes.length;
    s[1] += gzipSync(bytes, { level: 9 }).length;
  }
  const gz = m ? Number(m[2]) : NaN;
  console.log(
    `${env.padEnd(12)} ${(m?.[1] ?? '?').padStart(12)} ${(m?.[2] ?? '?').padStart(14)} ${kib(sums.js[0])} ${kib(sums.js[1])}  ${kib(sums.wasm[0])}  ${kib(sums.wasm[1])}   ${kib(sums.text[0])}  ${((gz / FREE_PLAN_GZIP_KIB) * 100).toFixed(0)} %`,
  );
}
rmSync(out, { recursive: true, force: true });
