/**
 * npm run bench:archive — how large is the evidence archive of an evaluation? Records a 20-question Mintaka
 * rehearsal (our npm run dev against the snapshot, the OpenAI-compatible stub answering the gold) with
 * `npm run eval -- --record`, and prints the archive's size, the same figure extrapolated to the HQA paper's
 * 200-question sample, and, as the reference measured in the same run, the size of its predictions.jsonl.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const N = 20;
const data = process.argv[2] ?? '../shared/data/mintaka/dev_sample.json';
const dir = mkdtempSync(join(tmpdir(), 'bench-archive-'));
try {
  const file = join(dir, 'archive.jsonl');
  const r = spawnSync('npx', ['tsx', 'cli/eval.ts', '--benchmark', 'mintaka', '--data', data, '--sample', String(N), '--seed', '1', '--rehearse', '--out', join(dir, 'out'), '--record', file], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`the recorded evaluation failed:\n${r.stderr.slice(-2000)}`);
  const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { record: { records: number; bytes: number } };
  const bytes = statSync(file).size;
  const predictions = statSync(join(dir, 'out', 'predictions.jsonl')).size;
  const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
  console.log(`archive of ${N} questions:        ${kb(bytes)} (${summary.record.records} distinct requests, ${(bytes / N).toFixed(0)} bytes per question)`);
  console.log(`extrapolated to 200 questions:  ${kb((bytes / N) * 200)}`);
  console.log(`reference, predictions.jsonl of the same ${N}: ${kb(predictions)} (archive/predictions = ${(bytes / predictions).toFixed(2)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
