/**
 * npm run eval -- --benchmark <name> --data <file> [flags]   (`npm run eval -- --help` lists every flag)
 * Asks every question through POST <url>/v1/answer, shows progress on stderr, and writes
 * predictions.jsonl, metrics.json and report.html into --out (default eval-results/<benchmark>).
 */
import { rmSync } from 'node:fs';
import { loadBenchmark, parseHybridQAReference } from '../src/eval/loaders/index';
import { NothingAnsweredError } from '../src/eval/node/evaluate';
import { evalCliVersion, sha256File } from '../src/eval/node/provenance';
import { PreflightError } from '../src/eval/runner/preflight';
import { prepareContexts } from '../src/eval/node/contexts';
import { readBenchmarkText } from '../src/eval/node/read-text';
import { DEFAULT_WIKIDATA_API } from '../src/eval/node/wikidata-labels';
import { seededSample } from '../src/eval/sample';
import { BENCHMARKS, isBenchmark } from '../src/eval/types';
import { fail, fromFile, parseCli, type CliSpec } from './args';
import { parseOptions, readSweep } from './eval-options';
import { evaluateOnce, rehearseCli, runSweep } from './eval-run';
import { judgeFromEnv } from './judge-env';
import type { CliEvaluation } from './eval-run';

const DEFAULT_URL = 'http://127.0.0.1:8787';

const CLI: CliSpec = {
  command: 'npm run eval --',
  summary:
    'Asks every question of a benchmark file through POST <url>/v1/answer, shows progress on stderr, and writes\n' +
    'predictions.jsonl, metrics.json and report.html into --out. See docs/EVAL.md for one command per paper table.',
  flags: {
    benchmark: { type: 'string', value: 'name', help: `one of ${BENCHMARKS.join(', ')} (required)` },
    data: { type: 'string', value: 'file', help: 'the benchmark file in its official format, .json/.jsonl, gzip or bzip2 (required)' },
    url: { type: 'string', value: 'url', help: `the service (default ${DEFAULT_URL}, i.e. npm run dev)` },
    variant: { type: 'string', value: 'variant', help: 'the service variant (default: the benchmark\'s own)' },
    mode: { type: 'string', value: 'mode', help: 'agent, program, rag or a baseline (default: the variant\'s)' },
    recipe: { type: 'string', value: 'paper|ours', help: 'options.recipe for every run: the published recipe or ours' },
    option: { type: 'string', value: 'key=value', multiple: true, help: 'an option for every run (repeatable; the value read as JSON when it parses; a.b=1 nests)' },
    'options-file': { type: 'string', value: 'file', help: 'a JSON object of options for every run (--recipe and --option go on top)' },
    sweep: { type: 'string', value: 'file', help: 'a JSON list (or object of named sets) of option sets: one evaluation each, on the same questions, into <out>/<name>' },
    'price-in': { type: 'string', value: 'P', help: 'price per million prompt tokens: the manifest then gives a cost' },
    'price-out': { type: 'string', value: 'P', help: 'price per million completion tokens' },
    sample: { type: 'string', value: 'N', help: 'a seeded random sample of N questions (the HQA paper uses 200)' },
    seed: { type: 'string', value: 'S', help: 'the sample\'s seed (default 0; needs --sample)' },
    limit: { type: 'string', value: 'N', help: 'only the first N questions (after --sample)' },
    lang: { type: 'string', value: 'code', help: 'QALD-9-Plus question language (en, de, ru, …); gold answers unchanged' },
    concurrency: { type: 'string', value: 'C', help: 'questions in flight at once (default 4)' },
    out: { type: 'string', value: 'dir', help: 'output folder (default eval-results/<benchmark>)' },
    resume: { type: 'boolean', help: 'skip questions already in --out/predictions.jsonl' },
    'api-key': { type: 'string', value: 'key', help: 'bearer key when the service sets API_KEYS' },
    retries: { type: 'string', value: 'R', help: 'retries per question on 429/5xx/network errors' },
    reference: { type: 'string', value: 'file', help: 'HybridQA dev_reference.json (table/passage split of the metrics)' },
    tables: { type: 'string', value: 'dir', help: 'HybridQA WikiTables-WithLinks folder (tables_tok/, request_tok/)' },
    'mmqa-dir': { type: 'string', value: 'dir', help: 'folder with MMQA_tables/texts/images.jsonl and the images' },
    'wikidata-api': { type: 'string', value: 'url|none', help: 'Wikibase api.php for the QALD label table (default the public one)' },
    labels: { type: 'string', value: 'file', help: 'a QALD label table to use instead of fetching one' },
    judge: { type: 'boolean', help: 'add a model-judged accuracy (HQA column M; CRAG uses its own judge)' },
    'judge-url': { type: 'string', value: 'url', help: 'OpenAI-compatible /v1 URL of the judge (default LLM_BASE_URL)' },
    'judge-model': { type: 'string', value: 'name', help: 'the judge model (default LLM_MODEL)' },
    'judge-key': { type: 'string', value: 'key', help: 'the judge\'s API key (default LLM_API_KEY)' },
    rehearse: { type: 'boolean', help: 'run against our own npm run dev with a stub model that answers the gold' },
    port: { type: 'string', value: 'N', help: 'with --rehearse: the port of its server (default any free one)' },
    record: { type: 'string', value: 'file', help: 'afterwards, write every run\'s evidence into one deduplicated archive (docs/ARCHIVE.md)' },
    replay: { type: 'string', value: 'file', help: 'upload this archive and serve every run\'s evidence from it; prints the misses' },
  },
  examples: [
    'npm run eval -- --benchmark mintaka --data ../shared/data/mintaka/dev_sample.json --sample 30 --seed 1',
    'npm run eval -- --benchmark hybridqa --data ../shared/data/hybridqa/dev.json --tables ../shared/data/hybridqa/WikiTables-WithLinks --rehearse',
  ],
};


type Flag = string | true | string[] | undefined;

const positive = (v: Flag, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) fail(`${name} must be a positive integer`);
  return n;
};

const nonNegative = (v: Flag, name: string, fallback: number): number => {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) fail(`${name} must be a non-negative integer`);
  return n;
};

const main = async () => {
  const args = parseCli(process.argv.slice(2), CLI);
  const benchmark = String(args.benchmark ?? '');
  if (!isBenchmark(benchmark)) fail(`--benchmark must be one of ${BENCHMARKS.join(', ')}`);
  const b = benchmark as (typeof BENCHMARKS)[number];
  if (typeof args.data !== 'string') fail('--data <file> is required');
  if (args.url === true) fail('--url needs a value (e.g. http://127.0.0.1:8787)');
  const url = typeof args.url === 'string' ? args.url : DEFAULT_URL;
  const ref = args.reference;
  const reference = typeof ref === 'string' ? fromFile(ref, () => parseHybridQAReference(readBenchmarkText(ref))) : undefined;
  const lang = typeof args.lang === 'string' ? args.lang : undefined;
  if (lang && b !== 'qald9plus') fail('--lang applies to qald9plus only');
  if (lang && !/^[a-z]{2,3}(-[a-z0-9]+)?$/i.test(lang)) fail('--lang takes a language code such as en, de, ru, zh');
  const loaded = fromFile(args.data as string, () => loadBenchmark(b, readBenchmarkText(args.data as string), { reference, language: lang }));
  if (lang) process.stderr.write(`${loaded.length} questions have a ${lang} string (gold answers unchanged)\n`);
  // Questions whose evidence is missing are dropped before sampling, so a sample is drawn from askable questions.
  const tables = typeof args.tables === 'string' ? args.tables : undefined;
  const mmqaDir = typeof args['mmqa-dir'] === 'string' ? args['mmqa-dir'] : undefined;
  if (tables && b !== 'hybridqa') fail('--tables applies to hybridqa only');
  if (mmqaDir && b !== 'mmqa') fail('--mmqa-dir applies to mmqa only');
  const prepared = prepareContexts(b, loaded, { tables, mmqaDir });
  if (prepared.note) process.stderr.write(`${prepared.note}\n`);
  let items = prepared.items;
  const sample = positive(args.sample, '--sample');
  const seed = nonNegative(args.seed, '--seed', 0);
  if (args.seed !== undefined && !sample) fail('--seed needs --sample N');
  if (sample) {
    items = seededSample(items, sample, seed);
    process.stderr.write(`sampled ${items.length} questions with seed ${seed}\n`);
  }
  const limit = positive(args.limit, '--limit');
  if (limit) items = items.slice(0, limit);
  if (!items.length) fail('no question to ask (check --limit, --sample and the data file)');
  const api = args['wikidata-api'];
  const wikidataApi = api === 'none' ? undefined : typeof api === 'string' ? api : DEFAULT_WIKIDATA_API;
  // --judge: CRAG's own judge for CRAG (used whenever a model is configured, as its local evaluation does);
  // for the others a model-judged accuracy beside the exact metrics (HQA's manual column "M").
  const wantJudge = args.judge === true || args.judge === 'true';
  const judgeFlags = {
    url: typeof args['judge-url'] === 'string' ? args['judge-url'] : undefined,
    model: typeof args['judge-model'] === 'string' ? args['judge-model'] : undefined,
    apiKey: typeof args['judge-key'] === 'string' ? args['judge-key'] : undefined,
  };
  const { judge, name } = b === 'crag' ? judgeFromEnv('crag', judgeFlags) : wantJudge ? judgeFromEnv('answer-check', judgeFlags) : { judge: undefined, name: 'none' };
  if (wantJudge && !judge) fail('--judge needs a model: --judge-url <OpenAI-compatible /v1 URL> --judge-model <name>, or LLM_BASE_URL and LLM_MODEL');
  const rehearsing = args.rehearse === true || args.rehearse === 'true';
  if (args.port !== undefined && !rehearsing) fail('--port is the port of the server --rehearse starts; to evaluate a running server give --url');
  // A rehearsal's default folder is its own and starts afresh each time.
  if (rehearsing && typeof args.out !== 'string') {
    rmSync(`eval-results/rehearsal-${b}/predictions.jsonl`, { force: true });
    rmSync(`eval-results/rehearsal-${b}/eval.json`, { force: true });
  }
  const options: CliEvaluation = {
    benchmark: b,
    items,
    outDir: typeof args.out === 'string' ? args.out : rehearsing ? `eval-results/rehearsal-${b}` : `eval-results/${b}`,
    variant: typeof args.variant === 'string' ? args.variant : undefined,
    mode: typeof args.mode === 'string' ? args.mode : tables ? 'program' : undefined,
    concurrency: positive(args.concurrency, '--concurrency'),
    resume: args.resume === true || args.resume === 'true',
    apiKey: typeof args['api-key'] === 'string' ? args['api-key'] : undefined,
    retries: args.retries === undefined ? undefined : Number(args.retries),
    reference,
    judge: b === 'crag' ? judge : undefined,
    answerJudge: b === 'crag' ? undefined : judge,
    judgeName: name,
    contextFor: prepared.contextFor,
    language: lang,
    wikidataApi,
    labelsFile: typeof args.labels === 'string' ? args.labels : undefined,
    sample: sample ? { n: sample, seed } : undefined,
    options: parseOptions({
      file: typeof args['options-file'] === 'string' ? args['options-file'] : undefined,
      recipe: typeof args.recipe === 'string' ? args.recipe : undefined,
      pairs: Array.isArray(args.option) ? args.option : [],
    }),
    progress: process.stderr,
    manifest: {
      data: { path: args.data as string, sha256: sha256File(args.data as string), questions: loaded.length },
      ...(typeof ref === 'string' ? { reference: { path: ref, sha256: sha256File(ref) } } : {}),
      limit: limit ?? null,
      evalCli: evalCliVersion(),
      prices: prices(args['price-in'], args['price-out']),
    },
  };
  const sweep = typeof args.sweep === 'string' ? readSweep(args.sweep) : undefined;
  const archives = { record: typeof args.record === 'string' ? args.record : undefined, replay: typeof args.replay === 'string' ? args.replay : undefined };
  if (rehearsing) {
    if (sweep) fail('--sweep and --rehearse do not go together');
    return rehearseCli(options, archives, typeof args.port === 'string' ? args.port : undefined);
  }
  const extra = { skippedNoContext: prepared.skipped };
  if (sweep) return runSweep(url, options, sweep, archives);
  await evaluateOnce(url, options, archives, extra);
};

const prices = (pin: Flag, pout: Flag): { in: number; out: number } | undefined => {
  if (pin === undefined && pout === undefined) return undefined;
  const read = (v: Flag, name: string) => {
    const n = Number(v);
    if (typeof v !== 'string' || !Number.isFinite(n) || n < 0) fail(`${name} must be a non-negative number (price per million tokens)`);
    return n;
  };
  return { in: read(pin, '--price-in'), out: read(pout, '--price-out') };
};

main().catch((e) => fail(e instanceof PreflightError || e instanceof NothingAnsweredError ? e.message : (e as Error).message));
