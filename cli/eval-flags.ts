import { BENCHMARKS } from '../src/eval/types';
import { flag, type ArgsOf, type CliSpec } from './args';

export const DEFAULT_URL = 'http://127.0.0.1:8787';

/** The flags a benchmark's questions are chosen and read with: shared by `npm run eval` and each row of `npm run table`. */
export const DATA_FLAGS = {
  data: flag.required({ value: 'file', help: 'the benchmark file in its official format, .json/.jsonl, gzip or bzip2 (required)' }),
  sample: flag.int({ value: 'N', help: 'a seeded random sample of N questions (the HQA paper uses 200)' }),
  seed: flag.int({ value: 'S', min: 0, help: 'the sample\'s seed (default 0; needs --sample)' }),
  limit: flag.int({ value: 'N', help: 'only the first N questions (after --sample)' }),
  lang: flag.text({ value: 'code', help: 'QALD-9-Plus question language (en, de, ru, …); gold answers unchanged' }),
  reference: flag.text({ value: 'file', help: 'HybridQA dev_reference.json (table/passage split of the metrics)' }),
  tables: flag.text({ value: 'dir', help: 'HybridQA WikiTables-WithLinks folder (tables_tok/, request_tok/)' }),
  'mmqa-dir': flag.text({ value: 'dir', help: 'folder with MMQA_tables/texts/images.jsonl and the images' }),
  'wikidata-api': flag.text({ value: 'url|none', help: 'Wikibase api.php for the QALD label table (default the public one)' }),
  labels: flag.text({ value: 'file', help: 'a QALD label table to use instead of fetching one' }),
};

/** How the service is asked: shared by `npm run eval` and `npm run table`. */
export const SERVICE_FLAGS = {
  url: flag.text({ value: 'url', help: `the service (default ${DEFAULT_URL}, i.e. npm run dev)` }),
  'api-key': flag.text({ value: 'key', help: 'bearer key when the service sets API_KEYS' }),
  concurrency: flag.int({ value: 'C', help: 'questions in flight at once (default 4)' }),
  retries: flag.int({ value: 'R', min: 0, max: 20, help: 'retries per question on 429/5xx/network errors (default 2)' }),
  epochs: flag.int({ value: 'K', max: 100, help: 'ask every question K times, each epoch with its own seed and Idempotency-Key; reports per-epoch scores and an interval over both questions and epochs' }),
  'price-in': flag.number({ value: 'P', min: 0, help: 'price per million prompt tokens: the manifest then gives a cost' }),
  'price-out': flag.number({ value: 'P', min: 0, help: 'price per million completion tokens' }),
  judge: flag.switch({ help: 'add a model-judged accuracy (HQA column M; CRAG uses its own judge)' }),
  'judge-url': flag.text({ value: 'url', help: 'OpenAI-compatible /v1 URL of the judge (default LLM_BASE_URL)' }),
  'judge-model': flag.text({ value: 'name', help: 'the judge model (default LLM_MODEL)' }),
  'judge-key': flag.text({ value: 'key', help: 'the judge\'s API key (default LLM_API_KEY)' }),
};

const EVAL_FLAGS = {
  benchmark: flag.choice(BENCHMARKS, { value: 'name', required: true, help: `one of ${BENCHMARKS.join(', ')} (required)` }),
  ...DATA_FLAGS,
  ...SERVICE_FLAGS,
  variant: flag.text({ value: 'variant', help: 'the service variant (default: the benchmark\'s own)' }),
  mode: flag.text({ value: 'mode', help: 'agent, program, rag or a baseline (default: the variant\'s)' }),
  recipe: flag.choice(['paper', 'ours'] as const, { value: 'paper|ours', help: 'options.recipe for every run: the published recipe or ours' }),
  option: flag.list({ value: 'key=value', help: 'an option for every run (repeatable; the value read as JSON when it parses; a.b=1 nests)' }),
  'options-file': flag.text({ value: 'file', help: 'a JSON object of options for every run (--recipe and --option go on top)' }),
  sweep: flag.text({ value: 'file', help: 'a JSON list (or object of named sets) of option sets, each may name a "mode": one evaluation each on the same questions into <out>/<name>, and their table (table.json/.md/.csv/.tex/.html)' }),
  baseline: flag.text({ value: 'name', help: 'with --sweep: the set each other is compared with (default the first)' }),
  out: flag.text({ value: 'dir', help: 'output folder (default eval-results/<benchmark>)' }),
  resume: flag.switch({ help: 'skip questions already in --out/predictions.jsonl' }),
  estimate: flag.switch({ help: 'ask a pilot of --pilot questions, print calls, tokens and cost per question with intervals and the projection for the whole selection, then stop' }),
  pilot: flag.int({ value: 'N', help: 'with --estimate: how many questions the pilot asks (default 10)' }),
  rehearse: flag.switch({ help: 'run against our own npm run dev with a stub model that answers the gold' }),
  port: flag.int({ value: 'N', max: 65_535, help: 'with --rehearse: the port of its server (default any free one)' }),
  record: flag.text({ value: 'file', help: 'afterwards, write every run\'s evidence into one deduplicated archive (a bare name goes into --out); the manifest names it and its SHA-256 (docs/ARCHIVE.md)' }),
  replay: flag.text({ value: 'file', help: 'upload this archive and serve every run\'s evidence from it; prints the misses' }),
};

export type EvalArgs = ArgsOf<typeof EVAL_FLAGS>;

const given = (v: unknown) => v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0);

/** Every rule between the eval's flags, in one place. */
export const EVAL_CLI: CliSpec<typeof EVAL_FLAGS> = {
  command: 'npm run eval --',
  summary:
    'Asks every question of a benchmark file through POST <url>/v1/answer, shows progress on stderr, and writes\n' +
    'predictions.jsonl, metrics.json and report.html into --out. See docs/EVAL.md for one command per paper table.',
  flags: EVAL_FLAGS,
  rules: [
    { broken: (a) => a.seed !== undefined && !a.sample, message: '--seed needs --sample N' },
    { broken: (a) => !!a.lang && a.benchmark !== 'qald9plus', message: '--lang applies to qald9plus only' },
    { broken: (a) => !!a.lang && !/^[a-z]{2,3}(-[a-z0-9]+)?$/i.test(a.lang), message: '--lang takes a language code such as en, de, ru, zh' },
    { broken: (a) => !!a.tables && a.benchmark !== 'hybridqa', message: '--tables applies to hybridqa only' },
    { broken: (a) => !!a['mmqa-dir'] && a.benchmark !== 'mmqa', message: '--mmqa-dir applies to mmqa only' },
    { broken: (a) => a.port !== undefined && !a.rehearse, message: '--port is the port of the server --rehearse starts; to evaluate a running server give --url' },
    { broken: (a) => !!a.sweep && a.rehearse, message: '--sweep and --rehearse do not go together' },
    { broken: (a) => !!a.sweep && (!!a.record || !!a.replay), message: '--sweep does not take --record or --replay' },
    { broken: (a) => !!a.baseline && !a.sweep, message: '--baseline names a --sweep set' },
    { broken: (a) => (a['price-in'] === undefined) !== (a['price-out'] === undefined), message: '--price-in and --price-out go together (price per million prompt and completion tokens)' },
    { broken: (a) => a.pilot !== undefined && !a.estimate, message: '--pilot is the size of --estimate\'s pilot' },
    { broken: (a) => a.estimate && (a.rehearse || !!a.sweep || a.resume || !!a.record), message: '--estimate runs a pilot on its own: not with --rehearse, --sweep, --resume or --record' },
    { broken: (a) => given(a.epochs) && a.rehearse, message: '--epochs and --rehearse do not go together (the gold-answer stub says the same every time)' },
    { broken: (a) => (a.epochs ?? 1) > 1 && (!!a.record || !!a.replay), message: '--epochs does not take --record or --replay yet: record one epoch' },
  ],
  examples: [
    'npm run eval -- --benchmark mintaka --data ../shared/data/mintaka/dev_sample.json --sample 30 --seed 1',
    'npm run eval -- --benchmark hybridqa --data ../shared/data/hybridqa/dev.json --tables ../shared/data/hybridqa/WikiTables-WithLinks --rehearse',
    'npm run eval -- --benchmark mintaka --data ../shared/data/mintaka/dev_sample.json --mode agent --estimate --price-in 0.15 --price-out 0.6',
  ],
};
