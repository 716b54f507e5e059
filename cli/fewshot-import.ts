#!/usr/bin/env node
/**
 * npm run fewshot:import -- --format hqa-json --from <file> [--out fewshot/<name>]
 *
 * Imports the HQA authors' human libraries (app/data/{mintaka,qald,compmix}.json of NIMI-research/Hybrid-QA) into
 * fewshot/<name>/, one NN-slug.txt per process, with a library.json manifest, then rebuilds the bundle so the Worker
 * can select the library (options.library or FEWSHOT_LIBRARY). The folder gets its own .gitignore: the authors'
 * text is theirs, so it is bundled into your build but not committed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HQA_TOOL_MAP, importHqaJson, type LibraryManifest } from '../src/fewshot/import-hqa';
import { fail, flag, parseCli } from './args';

const root = fileURLToPath(new URL('..', import.meta.url));
const MAX_FILE_BYTES = 20 * 1024 * 1024;
const RESERVED = new Set(['mintaka', 'qald9plus', 'compmix', 'hybridqa']);
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const args = parseCli(process.argv.slice(2), {
  command: 'npm run fewshot:import --',
  summary: "Imports the HQA authors' published human libraries into fewshot/<name>/ (bundled, never committed).",
  flags: {
    format: flag.choice(['hqa-json'] as const, { value: 'hqa-json', required: true, help: "the file's format: hqa-json (app/data/{mintaka,qald,compmix}.json)" }),
    from: flag.required({ value: 'file', help: "the authors' JSON file (required)" }),
    out: flag.text({ value: 'dir', help: 'fewshot/<name> (default fewshot/hqa-<file name>)' }),
  },
  examples: ['npm run fewshot:import -- --format hqa-json --from ~/Hybrid-QA/app/data/mintaka.json'],
});
const from = resolve(args.from);
if (!existsSync(from) || !statSync(from).isFile()) fail(`no such file: ${from}`);
if (statSync(from).size > MAX_FILE_BYTES) fail(`${from} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`);

const stem = basename(from).replace(/\.json$/i, '').toLowerCase().replace(/[^a-z0-9_-]+/g, '-');
const defaultName = stem.startsWith('hqa-') ? stem : `hqa-${stem}`;
const out = resolve(args.out ?? join(root, 'fewshot', defaultName));
const fewshotDir = join(root, 'fewshot');
const name = relative(fewshotDir, out);
if (name.includes('/') || name.includes('\\') || name.startsWith('..') || !NAME.test(name)) {
  fail(`--out must be a folder directly under ${relative(process.cwd(), fewshotDir) || 'fewshot'}/ named with lowercase letters, digits, - and _ (got ${out})`);
}
if (RESERVED.has(name)) fail(`fewshot/${name} holds this project's own library; import into another folder, e.g. fewshot/hqa-${name}`);
if (existsSync(out) && readdirSync(out).length && !existsSync(join(out, 'library.json'))) {
  fail(`fewshot/${name} exists and was not made by the importer (no library.json); choose another --out`);
}

let data: unknown;
try {
  data = JSON.parse(readFileSync(from, 'utf8'));
} catch (err) {
  fail(`${from} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
}
let result: ReturnType<typeof importHqaJson>;
try {
  result = importHqaJson(data, name);
} catch (err) {
  fail(err instanceof Error ? err.message : String(err));
}
const { processes, skipped } = result!;
if (!processes.length) fail(`nothing imported from ${from}: ${skipped.map((s) => `record ${s.index}: ${s.reason}`).join('; ') || 'no records'}`);

// A re-import replaces the previous one completely.
if (existsSync(out)) rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const p of processes) writeFileSync(join(out, p.file), p.text);
const manifest: LibraryManifest = { format: 'hqa-json', source: basename(from), processes: processes.length, skipped: skipped.length, toolMap: { ...HQA_TOOL_MAP } };
writeFileSync(join(out, 'library.json'), `${JSON.stringify(manifest, null, 2)}\n`);
writeFileSync(join(out, '.gitignore'), '# Imported from the authors\' published file: bundled into your build, not committed.\n*\n');

const bundled = spawnSync(process.execPath, [join(root, 'cli/build-bundle.mjs'), '--quiet'], { stdio: 'inherit' });

const steps = processes.map((p) => p.process.steps.length);
console.log(`imported ${processes.length} processes from ${basename(from)} into fewshot/${name}/ (mean ${(steps.reduce((a, b) => a + b, 0) / steps.length).toFixed(2)} tool calls)`);
for (const s of skipped) console.log(`  skipped record ${s.index}${s.question ? ` ("${s.question}")` : ''}: ${s.reason}`);
const mismatched = processes.filter((p) => p.sequenceMismatch).map((p) => p.file);
if (mismatched.length) console.log(`  Action_Sequence differs from the actions in One_Shot (One_Shot kept): ${mismatched.join(', ')}`);
console.log(bundled.status === 0 ? 'bundle rebuilt.' : 'the bundle was not rebuilt: run `npm run bundle`.');
console.log(`Use it: options.library = "${name}" per request, or FEWSHOT_LIBRARY=${name} for the deployment. Check it: npm run fewshot:check`);
