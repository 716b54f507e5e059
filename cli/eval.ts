/**
 * npm run eval -- --benchmark <name> --data <file> [flags]   (`npm run eval -- --help` lists every flag)
 * Asks every question through POST <url>/v1/answer, shows progress on stderr, and writes
 * predictions.jsonl, metrics.json and report.html into --out (default eval-results/<benchmark>).
 */
import { rmSync } from 'node:fs';
import { loadBenchmark, parseHybridQAReference } from '../src/eval/loaders/index';
import { runEvaluation, type EvaluationOptions, type EvaluationSummary } from '../src/eval/node/evaluate';
import { quirkText, rehearse } from '../src/eval/node/rehearse';
import { prepareContexts } from '../src/eval/node/contexts';
import { readBenchmarkText } from '../src/eval/node/read-text';
import { DEFAULT_WIKIDATA_API } from '../src/eval/node/wikidata-labels';
import { seededSample } from '../src/eval/sample';
import { BENCHMARKS, isBenchmark } from '../src/eval/types';
import { join } from 'node:path';
import { recordArchive, runsOf, uploadArchive } from '../src/eval/node/archive';
import { fail, fromFile, parseCli, type CliSpec } from './args';
import { judgeFromEnv } from './judge-env';

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


const positive = (v: string | true | undefined, name: string): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) fail(`${name} must be a positive integer`);
  return n;
};

const nonNegative = (v: string | true | undefined, name: string, fallback: number): number => {
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
  if (rehearsing && typeof args.out !== 'string') rmSync(`eval-results/rehearsal-${b}/predictions.jsonl`, { force: true });
  const options: Omit<EvaluationOptions, 'url'> = {
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
    options: typeof args.recipe === 'string' ? { recipe: args.recipe } : undefined,
    progress: process.stderr,
  };
  const archives = { record: typeof args.record === 'string' ? args.record : undefined, replay: typeof args.replay === 'string' ? args.replay : undefined };
  if (rehearsing) return rehearseCli(options, archives, args.port);
  await beforeRuns(url, options, archives);
  const summary = await runEvaluation({ ...options, url });
  const missing = prepared.skipped ? `, ${prepared.skipped} not asked (context missing)` : '';
  process.stderr.write(`asked ${summary.asked}, skipped ${summary.skipped} (resume)${missing}, errors ${summary.errors}\n`);
  process.stderr.write(`wrote ${summary.files.predictions}\n      ${summary.files.metrics}\n      ${summary.files.report}\n`);
  const out: Record<string, unknown> = { benchmark: summary.benchmark, n: summary.n, metrics: summary.metrics };
  Object.assign(out, trustFigures(summary));
  if (summary.usage.evidenceCache.hitRate !== null) out.evidenceCache = summary.usage.evidenceCache;
  if (summary.usage.promptsTrimmed) out.promptsTrimmed = summary.usage.promptsTrimmed;
  if (prepared.skipped) out.skippedNoContext = prepared.skipped;
  if (summary.judge) out.judge = summary.judge;
  Object.assign(out, await afterRuns(url, options, archives));
  process.stdout.write(`${JSON.stringify(out)}\n`);
};

/** Whether the confidence is worth anything: the share of answers a verified citation backs, and accuracy per confidence level. */
const trustFigures = (s: EvaluationSummary) => ({
  verifiedCitationRate: s.verifiedCitationRate === null ? null : Math.round(10 * s.verifiedCitationRate) / 10,
  byConfidence: Object.fromEntries(s.byConfidence.map((g) => [g.label, { n: g.n, accuracy: Math.round(10 * g.accuracy) / 10 }])),
});

interface Archives {
  record?: string;
  replay?: string;
}

/** --replay: upload the archive and name it in every run's options. */
const beforeRuns = async (url: string, options: Omit<EvaluationOptions, 'url'>, a: Archives) => {
  if (!a.replay) return;
  const { archiveId, records } = await uploadArchive({ url, file: a.replay, apiKey: options.apiKey });
  process.stderr.write(`replaying ${a.replay} (${records} records) as ${archiveId}\n`);
  options.options = { ...(options.options ?? {}), evidence: { replay: archiveId } };
};

/** --record: one archive of every run's evidence; --replay: how many requests the archive did not hold. */
const afterRuns = async (url: string, options: Omit<EvaluationOptions, 'url'>, a: Archives): Promise<Record<string, unknown>> => {
  if (!a.record && !a.replay) return {};
  const { runIds, misses } = runsOf(join(options.outDir, 'predictions.jsonl'), new Set(options.items.map((i) => i.id)));
  const out: Record<string, unknown> = {};
  if (a.replay) {
    out.replay = { archive: a.replay, runs: runIds.length, misses };
    process.stderr.write(`replay: ${misses} requests were not in the recording\n`);
  }
  if (a.record) {
    const r = await recordArchive({ url, runIds, file: a.record, apiKey: options.apiKey });
    out.record = r;
    process.stderr.write(`recorded ${r.records} distinct requests of ${r.runs} runs into ${r.file} (${r.bytes} bytes)\n`);
    if (r.failed) process.stderr.write(`warning: the evidence of ${r.failed} runs could not be fetched\n`);
  }
  return out;
};

/**
 * --rehearse: our own `npm run dev` with the model stub answering every question with its gold answer; prints
 * the main metric and, per item below 100 (or at 100 only by a scorer rule), the gold-format quirk or "UNEXPLAINED".
 */
const rehearseCli = async (options: Omit<EvaluationOptions, 'url'>, archives: Archives = {}, portFlag?: string | true) => {
  const { rehearsalPort, startRehearsalService } = await import('./rehearse-service');
  const port = await rehearsalPort(portFlag);
  process.stderr.write('starting npm run dev with the gold-answer model stub…\n');
  const service = await startRehearsalService({}, port);
  process.stderr.write(`serving at ${service.url}\n`);
  try {
    await beforeRuns(service.url, options, archives);
    const r = await rehearse({ ...options, service });
    const archived = await afterRuns(service.url, options, archives);
    for (const item of [...r.explained, ...r.unexplained]) {
      const why = item.quirk ? `${item.quirk}: ${quirkText(item.quirk)}` : `UNEXPLAINED${item.error ? ` (${item.error})` : ''}`;
      process.stderr.write(`  ${item.id} score ${(100 * item.score).toFixed(1)} — ${why}\n    answer: ${JSON.stringify(item.answer)} gold: ${JSON.stringify(item.gold.slice(0, 200))}\n`);
    }
    process.stderr.write(`wrote ${r.files.predictions}\n      ${r.files.metrics}\n      ${r.files.report}\n`);
    const out = { rehearsal: true, benchmark: r.benchmark, mode: r.mode, n: r.n, errors: r.errors, main: { [r.mainMetric]: r.main }, metrics: r.metrics, ...trustFigures(r), explained: r.explained.length, unexplained: r.unexplained.length, ...archived };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    if (r.unexplained.length || r.errors) process.exitCode = 1;
  } finally {
    await service.stop();
  }
};

main().catch((e) => fail((e as Error).message));
