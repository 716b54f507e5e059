/**
 * npm run compare -- <eval folder A> <eval folder B> [--out dir] [--data file]
 * Re-scores both evaluations' predictions against the data file their manifests name, pairs the questions by id and
 * prints, per metric, A, B, the delta with its paired-bootstrap 95 % interval and a p-value; writes comparison.json
 * and comparison.html. Refuses two different benchmarks or data files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { comparisonHtml, comparisonTable } from '../src/eval/compare/render';
import { compareFolders, CompareRefusal } from '../src/eval/node/compare-folders';
import { fail } from './args';
import { judgeFromEnv } from './judge-env';

const USAGE = `usage: npm run compare -- <eval folder A> <eval folder B> [--out dir] [--data file]

Compares two evaluations of the same benchmark file question by question (B against A): per metric A, B, the delta,
its paired-bootstrap 95 % interval and a p-value (McNemar's exact test for 0/1 metrics, a paired permutation test
otherwise), wins/losses/ties on the main per-question score, the questions that flipped and the manifest fields that
differ. Writes comparison.json and comparison.html into --out (default eval-results/compare/<A>-vs-<B>).
--data: the benchmark file, when it is no longer where the manifests say (its SHA-256 must match).
CRAG is re-scored with its judge when LLM_BASE_URL/LLM_MODEL name one, as npm run score does.
`;

const main = async () => {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const flags: Record<string, string> = {};
  const folders: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out' || arg === '--data') {
      if (!argv[i + 1]) fail(`${arg} needs a value`);
      flags[arg.slice(2)] = argv[++i];
    } else if (arg.startsWith('--')) fail(`unknown flag ${arg}\n${USAGE}`);
    else folders.push(arg);
  }
  if (folders.length !== 2) fail(`give exactly two evaluation folders\n${USAGE}`);
  const [dirA, dirB] = folders;
  const names = { a: dirA, b: dirB };
  const { judge, name } = judgeFromEnv('crag');
  const comparison = await compareFolders(dirA, dirB, { data: flags.data, judge, judgeName: name });
  const out = flags.out ?? join('eval-results', 'compare', `${basename(resolve(dirA))}-vs-${basename(resolve(dirB))}`);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'comparison.json'), `${JSON.stringify(comparison, null, 2)}\n`);
  writeFileSync(join(out, 'comparison.html'), comparisonHtml(comparison, names));
  process.stdout.write(comparisonTable(comparison, names));
  process.stderr.write(`wrote ${join(out, 'comparison.json')}\n      ${join(out, 'comparison.html')}\n`);
};

main().catch((e) => fail(e instanceof CompareRefusal ? `cannot compare: ${e.message}` : ((e as Error).stack ?? String(e))));
