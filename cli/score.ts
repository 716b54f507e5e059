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
import { BENCHMARKS, type Prediction } from '../src/eval/types';
import { fail, fromFile, flag, parseCli } from './args';
import { judgeFromEnv } from './judge-env';

const CLI = {
  command: 'npm run score --',
  summary: 'Scores a predictions.jsonl against a benchmark file with the benchmark\'s official metric (offline).',
  flags: {
    benchmark: flag.choice(BENCHMARKS, { value: 'name', required: true, help: `one of ${BENCHMARKS.join(', ')} (required)` }),
    gold: flag.required({ value: 'file', help: 'the benchmark file in its official format (required)' }),
    pred: flag.required({ value: 'file', help: 'predictions.jsonl as npm run eval writes it (required)' }),
    reference: flag.text({ value: 'file', help: 'HybridQA dev_reference.json' }),
    'mintaka-mode': flag.choice(['text', 'kg'] as const, { value: 'text|kg', help: 'Mintaka answer matching (default text)' }),
    labels: flag.text({ value: 'file', help: 'QALD label table (default qald-labels.json beside --pred)' }),
    lang: flag.text({ value: 'code', help: 'QALD-9-Plus question language' }),
    all: flag.switch({ help: 'score every gold question, counting the ones never asked as wrong (default: the asked ones)' }),
  },
};

const main = async () => {
  const args = parseCli(process.argv.slice(2), CLI);
  const b = args.benchmark!;
  const ref = args.reference;
  const reference = ref ? fromFile(ref, () => parseHybridQAReference(readBenchmarkText(ref, 'reference file'))) : undefined;
  const language = args.lang;
  const items = fromFile(args.gold, () => loadBenchmark(b, readBenchmarkText(args.gold, 'gold file'), { reference, language }));
  const labelsPath = args.labels ?? join(dirname(args.pred), LABELS_FILE);
  const qaldLabels = b === 'qald9plus' ? readLabelTable(labelsPath) : undefined;
  if (b === 'qald9plus' && !qaldLabels) process.stderr.write(`note: no label table at ${labelsPath}\n`);
  const predictions = indexPredictions(fromFile(args.pred, () => readPredictionLines(args.pred)) as Prediction[]);
  const { judge, name } = b === 'crag' ? judgeFromEnv() : { judge: undefined, name: 'none' };
  const mode = args['mintaka-mode'] ?? 'text';
  const everyQuestion = args.all;
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

main().catch((e) => fail((e as Error).message));
