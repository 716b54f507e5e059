/**
 * Page-processing speed against the BeautifulSoup reference, on the 25 real pages of CRAG's sample.
 *
 *   npx tsx bench/pages.ts [path/to/sample5.jsonl.gz] [--repeat N]   (default: $BENCHMARK_DATA/crag/sample5.jsonl.gz)
 *
 * Needs Debian's python3 with bs4 for the reference half (apt-get install -y python3-bs4); without it the
 * reference is reported as unavailable and only our figures print. Timings are best-of-N per page (default 3),
 * the same rule the reference script applies with --repeat.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { processPage } from '../src/web/page';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const repeatAt = args.indexOf('--repeat');
const repeat = repeatAt >= 0 ? Math.max(1, Number(args[repeatAt + 1]) || 1) : 3;
const dataDir = resolve(repoRoot, process.env.BENCHMARK_DATA || '../shared/data');
const dataPath = resolve(args.find((a, i) => !a.startsWith('--') && (repeatAt < 0 || i !== repeatAt + 1)) ?? resolve(dataDir, 'crag/sample5.jsonl.gz'));
// The reference script sits beside the data folder (../shared/reference next to ../shared/data).
const referenceScript = resolve(dataPath, '../../../reference/pages_bs4.py');

if (!existsSync(dataPath)) {
  console.log(`no data at ${dataPath}: nothing to measure`);
  process.exit(0);
}

const pages: { url: string; html: string }[] = [];
for (const line of gunzipSync(readFileSync(dataPath)).toString('utf8').split('\n')) {
  if (!line.trim()) continue;
  for (const r of JSON.parse(line).search_results ?? []) pages.push({ url: r.page_url ?? '', html: r.page_result ?? '' });
}

// Warm the JIT on one page so the first measured page is not charged for compilation.
processPage(pages.find((p) => p.html)?.html ?? '');

const ours = pages.map((p) => {
  let best = Infinity;
  let out = processPage(p.html);
  for (let k = 0; k < repeat; k++) {
    const t0 = performance.now();
    out = processPage(p.html);
    best = Math.min(best, performance.now() - t0);
  }
  return { url: p.url, bytes: Buffer.byteLength(p.html), ms: best, chunks: out.chunks.length, tables: out.tables.length };
});
const ourTotal = ours.reduce((n, p) => n + p.ms, 0);
const largest = ours.reduce((a, b) => (b.bytes > a.bytes ? b : a));

console.log(`pages: ${pages.length} (${(ours.reduce((n, p) => n + p.bytes, 0) / 1e6).toFixed(2)} MB), best of ${repeat}`);
console.log(`ours (htmlparser2 streaming, Node ${process.version}): total ${ourTotal.toFixed(1)} ms, largest page (${(largest.bytes / 1e6).toFixed(2)} MB) ${largest.ms.toFixed(1)} ms, max ${Math.max(...ours.map((p) => p.ms)).toFixed(1)} ms`);
console.log(`  chunks ${ours.reduce((n, p) => n + p.chunks, 0)}, tables ${ours.reduce((n, p) => n + p.tables, 0)}`);

const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const ref = spawnSync(python, [referenceScript, dataPath, '--repeat', String(repeat)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
if (ref.status !== 0) {
  console.log(`reference unavailable (${(ref.stderr || ref.error?.message || '').trim().split('\n').pop()}); install with: apt-get install -y python3-bs4`);
  process.exit(0);
}
const reference = JSON.parse(ref.stdout) as { total_ms: number; max_ms: number; per_page: { bytes: number; ms: number; chunks: number; tables: number }[] };
const refLargest = reference.per_page.reduce((a, b) => (b.bytes > a.bytes ? b : a));
console.log(`reference (BeautifulSoup html.parser): total ${reference.total_ms.toFixed(1)} ms, largest page ${refLargest.ms.toFixed(1)} ms`);
console.log(`  chunks ${reference.per_page.reduce((n, p) => n + p.chunks, 0)}, tables ${reference.per_page.reduce((n, p) => n + p.tables, 0)}`);
const ratio = reference.total_ms / ourTotal;
console.log(`speed ratio (reference / ours): ${ratio.toFixed(1)}× in total, ${(refLargest.ms / largest.ms).toFixed(1)}× on the largest page`);
console.log(`targets: ≥ 10× total ${ratio >= 10 ? 'met' : 'MISSED'}; largest ≤ 50 ms ${largest.ms <= 50 ? 'met' : 'MISSED'}`);
