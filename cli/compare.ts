/**
 * npm run compare -- <eval folder A> <eval folder B> [--out dir] [--data file] [--allow-rehearsal]
 * Re-scores both evaluations' predictions against the data file their manifests name, pairs the questions by id
 * (averaged over epochs when they ran in epochs) and prints, per metric, A, B, the delta with its paired-bootstrap 95 %
 * interval and a p-value; the same over non-empty gold sets and per category; warnings for runs that did not finish
 * and settings that differ. Writes comparison.json and comparison.html. Refuses two different benchmarks or data
 * files, and a rehearsal against a real run unless --allow-rehearsal.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { comparisonHtml, comparisonTable } from '../src/eval/compare/render';
import { compareFolders } from '../src/eval/node/compare-folders';
import { fail, flag, parseCli } from './args';
import { judgeFromEnv } from './judge-env';

const CLI = {
  command: 'npm run compare --',
  summary:
    'Compares two evaluations of the same benchmark file question by question (B against A): per metric A, B, the delta,\n' +
    'its paired-bootstrap 95 % interval and a p-value (McNemar\'s exact test for 0/1 metrics, a paired permutation test\n' +
    'otherwise), the same over the questions whose gold is not empty and per category, wins/losses/ties, the questions\n' +
    'that flipped, every manifest field that differs and a warning for each that could explain the delta.\n' +
    'Writes comparison.json and comparison.html into --out (default eval-results/compare/<A>-vs-<B>).\n' +
    'CRAG is re-scored with its judge when LLM_BASE_URL/LLM_MODEL name one, as npm run score does.',
  positionals: { count: 2, name: '<eval folder A> <eval folder B>' },
  flags: {
    out: flag.text({ value: 'dir', help: 'where comparison.json and comparison.html go' }),
    data: flag.text({ value: 'file', help: 'the benchmark file, when it is no longer where the manifests say (its SHA-256 must match)' }),
    'allow-rehearsal': flag.switch({ help: 'compare a rehearsal (the gold-answer stub) with a real evaluation all the same' }),
  },
};

const main = async () => {
  const args = parseCli(process.argv.slice(2), CLI);
  const [dirA, dirB] = args.positionals;
  const names = { a: dirA, b: dirB };
  const { judge, name } = judgeFromEnv('crag');
  const comparison = await compareFolders(dirA, dirB, { data: args.data, judge, judgeName: name, allowRehearsal: args['allow-rehearsal'] });
  const out = args.out ?? join('eval-results', 'compare', `${basename(resolve(dirA))}-vs-${basename(resolve(dirB))}`);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'comparison.json'), `${JSON.stringify(comparison, null, 2)}\n`);
  writeFileSync(join(out, 'comparison.html'), comparisonHtml(comparison, names));
  process.stdout.write(comparisonTable(comparison, names));
  process.stderr.write(`wrote ${join(out, 'comparison.json')}\n      ${join(out, 'comparison.html')}\n`);
};

// Every refusal and failure is one line naming what is wrong; never a stack trace.
main().catch((e) => fail(`cannot compare: ${(e as Error).message}`));
