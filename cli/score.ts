/**
 * npm run score -- --benchmark <name> --gold <file> --pred <predictions.jsonl> [--reference <file>]
 *                  [--mintaka-mode text|kg] [--labels qald-labels.json] [--lang L]
 * QALD: text answers are mapped to gold IRIs through the label table (default: qald-labels.json beside
 * --pred, as `npm run eval` leaves it); scoring never touches the network.
 * Scores the questions the predictions answer (as `npm run eval` did); --all scores every gold question, a
 * question never asked counting as wrong. Says on stderr how many gold questions were never asked.
 * Prints one JSON object: {"benchmark", "n", "metrics": {...}, "notAsked"?} (CRAG adds "judge").
 */
import { loadBenchmark, parseHybridQAReference } from '../src/eval/loaders/index';
import { dirname, join } from 'node:path';
import { readBenchmarkText, readPredictionLines } from '../src/eval/node/read-text';
import { LABELS_FILE, readLabelTable } from '../src/eval/node/wikidata-labels';
import { askedItems, indexPredictions, scoreBenchmark } from '../src/eval/score';
import { BENCHMARKS, isBenchmark, type Prediction } from '../src/eval/types';
import { fail, fromFile, parseCli, type CliSpec } from './args';
import { judgeFromEnv } from './judge-env';

const CLI: CliSpec = {
  command: 'npm run score --',
  summary: 'Scores a predictions.jsonl against a benchmark file with the benchmark\'s official metric (offline).',
  flags: {
    benchmark: { type: 'string', value: 'name', help: `one of ${BENCHMARKS.join(', ')} (required)` },
    gold: { type: 'string', value: 'file', help: 'the benchmark file in its official format (required)' },
    pred: { type: 'string', value: 'file', help: 'predictions.jsonl as npm run eval writes it (required)' },
    reference: { type: 'string', value: 'file', help: 'HybridQA dev_reference.json' },
    'mintaka-mode': { type: 'string', value: 'text|kg', help: 'Mintaka answer matching (default text)' },
    labels: { type: 'string', value: 'file', help: 'QALD label table (default qald-labels.json beside --pred)' },
    lang: { type: 'string', value: 'code', help: 'QALD-9-Plus question language' },
    all: { type: 'boolean', help: 'score every gold question, counting the ones never asked as wrong (default: the asked ones)' },
  },
};

const main = async () => {
  const args = parseCli(process.argv.slice(2), CLI);
  const benchmark = String(args.benchmark ?? '');
  if (!isBenchmark(benchmark)) fail(`--benchmark must be one of ${BENCHMARKS.join(', ')}`);
  if (typeof args.gold !== 'string') fail('--gold <file> is required');
  if (typeof args.pred !== 'string') fail('--pred <predictions.jsonl> is required');
  const b = benchmark as (typeof BENCHMARKS)[number];
  const ref = args.reference;
  const reference = typeof ref === 'string' ? fromFile(ref, () => parseHybridQAReference(readBenchmarkText(ref))) : undefined;
  const language = typeof args.lang === 'string' ? args.lang : undefined;
  const items = fromFile(args.gold as string, () => loadBenchmark(b, readBenchmarkText(args.gold as string), { reference, language }));
  const labelsPath = typeof args.labels === 'string' ? args.labels : join(dirname(args.pred as string), LABELS_FILE);
  const qaldLabels = b === 'qald9plus' ? readLabelTable(labelsPath) : undefined;
  if (b === 'qald9plus' && !qaldLabels) process.stderr.write(`note: no label table at ${labelsPath}\n`);
  const predictions = indexPredictions(readPredictionLines(args.pred as string) as Prediction[]);
  const { judge, name } = b === 'crag' ? judgeFromEnv() : { judge: undefined, name: 'none' };
  const mode = args['mintaka-mode'] === 'kg' ? 'kg' : 'text';
  const everyQuestion = args.all === true || args.all === 'true';
  const { asked, neverAsked } = askedItems(items, predictions);
  if (neverAsked) {
    const of = `${neverAsked.toLocaleString('en')} of the ${items.length.toLocaleString('en')} questions in ${args.gold} ${neverAsked === 1 ? 'has' : 'have'} no line in ${args.pred} (never asked)`;
    process.stderr.write(everyQuestion ? `note: ${of}; --all counts them as wrong\n` : `note: scoring the ${asked.length.toLocaleString('en')} asked; ${of} — --all counts them as wrong\n`);
  }
  const result = await scoreBenchmark(b, everyQuestion ? items : asked, predictions, { reference, judge, judgeName: name, mintakaMode: mode, qaldLabels, language: language ?? 'en' });
  for (const note of result.notes ?? []) process.stderr.write(`note: ${note}\n`);
  const out: Record<string, unknown> = { benchmark: result.benchmark, n: result.n, metrics: result.metrics };
  if (neverAsked) out[everyQuestion ? 'neverAskedCountedWrong' : 'notAsked'] = neverAsked;
  if (result.judge) out.judge = result.judge;
  process.stdout.write(`${JSON.stringify(out)}\n`);
};

main().catch((e) => fail((e as Error).stack ?? String(e)));
