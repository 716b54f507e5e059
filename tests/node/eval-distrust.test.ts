// @module-tag slow
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseOptions, readSweep } from '../../cli/eval-options';
import { readTableSpec } from '../../cli/table-spec';
import { loadMintaka } from '../../src/eval/loaders/mintaka';
import { buildManifest } from '../../src/eval/manifest';
import { compareFolders } from '../../src/eval/node/compare-folders';
import { sha256File } from '../../src/eval/node/input-files';
import { indexPredictions } from '../../src/eval/predictions';
import { freePort } from '../support/dev-server.mjs';

/**
 * "A CLI that distrusts its inputs": every path a manifest or a flag names, every field of a metrics.json, every
 * option key and every name is checked before it is used, and each refusal is one line (exit 2), never a stack trace,
 * never the bytes of a file it should not have read. The CLIs run as a user runs them, as child processes; their peak
 * memory is read from outside by GNU time.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const TIME = '/usr/bin/time';
const tmp = mkdtempSync(join(tmpdir(), 'eval-distrust-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A CLI run under GNU time: its exit code, output, wall time as the test saw it and peak RSS (kB) as the kernel counted it. */
const cli = (script: string, args: string[]) =>
  new Promise<{ code: number | null; stdout: string; stderr: string; ms: number; maxRssKb: number | null }>((ok) => {
    const rss = join(tmp, `rss-${Math.random().toString(36).slice(2)}`);
    const useTime = existsSync(TIME);
    const [cmd, argv] = useTime ? [TIME, ['-f', '%M', '-o', rss, process.execPath, '--import', 'tsx', script, ...args]] : [process.execPath, ['--import', 'tsx', script, ...args]];
    const started = Date.now();
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const kb = useTime && existsSync(rss) ? Number(readFileSync(rss, 'utf8').trim().split('\n').at(-1)) : null;
      ok({ code, stdout, stderr, ms: Date.now() - started, maxRssKb: kb });
    });
  });

const STACK = /^\s+at .+\(.+:\d+:\d+\)$/m;

/** A small Mintaka file in the official format; `repeat` gives two questions the same id. */
const mintakaFile = (name: string, repeat = false) => {
  const q = (id: string, question: string, label: string) => ({ id, question, answer: { answerType: 'entity', answer: [{ name: 'Q1', label: { en: label } }], mention: label }, category: 'books', complexityType: 'ordinal' });
  const file = join(tmp, name);
  writeFileSync(file, JSON.stringify([q('m1', 'Who wrote Nineteen Eighty-Four?', 'George Orwell'), q(repeat ? 'm1' : 'm2', 'Who wrote Emma?', 'Jane Austen'), q('m3', 'Who wrote Dune?', 'Frank Herbert')]));
  return file;
};
const DATA = mintakaFile('mintaka.json');
const items = loadMintaka(readFileSync(DATA, 'utf8'));

/** An evaluation folder as npm run eval leaves it, with its manifest changed by `edit`. */
const folder = (name: string, edit: (m: Record<string, any>) => void = () => {}, rehearsal = false) => {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const predictions = items.map((i) => ({ id: i.id, answer: 'George Orwell', status: 'succeeded' }));
  writeFileSync(join(dir, 'predictions.jsonl'), predictions.map((p) => JSON.stringify(p)).join('\n'));
  const manifest = buildManifest(
    { data: { path: DATA, sha256: sha256File(DATA), questions: items.length }, rehearsal },
    { url: 'http://127.0.0.1:1', mode: 'parametric', items, predictions: indexPredictions(predictions), startedAt: 'x', endedAt: 'y', concurrency: 1 },
  ) as unknown as Record<string, any>;
  edit(manifest);
  writeFileSync(join(dir, 'metrics.json'), JSON.stringify({ benchmark: 'mintaka', rehearsal, manifest }));
  return dir;
};

describe('compare distrusts the folders it is given', () => {
  it('refuses a metrics.json naming /dev/zero as its data file at once, in little memory, without a stack', async () => {
    const zero = (m: Record<string, any>) => (m.data = { path: '/dev/zero', sha256: '0'.repeat(64), questions: 3 });
    const r = await cli('cli/compare.ts', [folder('zero-a', zero), folder('zero-b', zero), '--out', join(tmp, 'cmp-zero')]);
    console.log(`compare on a /dev/zero data path: exit ${r.code} after ${r.ms} ms (a tsx start-up included), peak RSS ${r.maxRssKb === null ? 'not measured (no GNU time)' : `${(r.maxRssKb / 1024).toFixed(0)} MB`}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/dev/zero is not a regular file');
    expect(r.stderr).not.toMatch(STACK);
    if (r.maxRssKb !== null) expect(r.maxRssKb).toBeLessThan(200 * 1024);
    expect(existsSync(join(tmp, 'cmp-zero'))).toBe(false);
  });

  it('checks a reference file against its recorded SHA-256 before reading it, and never echoes its bytes', async () => {
    const a = folder('ok-a');
    const passwd = folder('passwd', (m) => (m.reference = { path: '/etc/passwd', sha256: 'f'.repeat(64) }));
    const wrongHash = await cli('cli/compare.ts', [a, passwd, '--out', join(tmp, 'cmp-passwd')]);
    expect(wrongHash.code).toBe(2);
    expect(wrongHash.stderr).toMatch(/different HybridQA reference files|is not the file the evaluation read/);
    // Both name it, with its true hash: it is read, and is not JSON — the refusal says where, not what.
    const real = sha256File('/etc/passwd');
    const both = (m: Record<string, any>) => (m.reference = { path: '/etc/passwd', sha256: real });
    const matched = await cli('cli/compare.ts', [folder('passwd-a', both), folder('passwd-b', both), '--out', join(tmp, 'cmp-passwd2')]);
    expect(matched.code).toBe(2);
    expect(matched.stderr).toContain('not valid JSON');
    for (const r of [wrongHash, matched]) {
      expect(r.stderr).not.toContain('root:');
      expect(r.stderr).not.toMatch(STACK);
    }
  });

  it('refuses a manifest without `asked`, or with a wrong field, naming the field', async () => {
    const r = await cli('cli/compare.ts', [folder('no-asked', (m) => delete m.asked), folder('ok-b'), '--out', join(tmp, 'cmp-asked')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/error: cannot compare: .*metrics\.json is not an evaluation's metrics\.json: manifest\.asked/);
    expect(r.stderr).not.toMatch(STACK);
    await expect(compareFolders(folder('bad-sha', (m) => (m.data.sha256 = 'not-a-hash')), folder('ok-c'))).rejects.toThrow(/manifest\.data\.sha256: a SHA-256 in hex/);
    const escape = join(tmp, 'escape');
    folder('escape');
    writeFileSync(join(escape, 'metrics.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(escape, 'metrics.json'), 'utf8')), epochs: { k: 1, folders: ['../ok-a'] } }));
    await expect(compareFolders(escape, folder('ok-e'))).rejects.toThrow(/epochs\.folders/);
  });

  it('refuses to compare a rehearsal with a real run unless told to', async () => {
    const rehearsal = folder('rehearsal', () => {}, true);
    const real = folder('real');
    const refused = await cli('cli/compare.ts', [rehearsal, real, '--out', join(tmp, 'cmp-r')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is a rehearsal');
    expect(refused.stderr).toContain('--allow-rehearsal');
    const allowed = await cli('cli/compare.ts', [rehearsal, real, '--out', join(tmp, 'cmp-r2'), '--allow-rehearsal']);
    expect(allowed.code, allowed.stderr).toBe(0);
  });
});

describe('eval distrusts its flags and files before asking anything', () => {
  /** A URL nothing listens on: a refusal must come before the first request would fail. */
  const dead = async () => `http://127.0.0.1:${await freePort()}`;

  it('refuses option keys that reach a prototype, on the command line, in an options file and in a sweep', async () => {
    const r = await cli('cli/eval.ts', ['--benchmark', 'mintaka', '--data', DATA, '--url', await dead(), '--option', '__proto__.polluted=1', '--out', join(tmp, 'proto')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the key "__proto__" is refused');
    expect(r.stderr).not.toMatch(/connection refused/);
    expect(() => parseOptions({ pairs: ['constructor.prototype.x=1'] })).toThrow(/"constructor" is refused/);
    expect(() => parseOptions({ pairs: ['limits={"__proto__":{"x":1}}'] })).toThrow(/limits\.__proto__/);
    const file = join(tmp, 'proto.json');
    writeFileSync(file, '{"k": 3, "__proto__": {"polluted": true}}');
    expect(() => parseOptions({ file, pairs: [] })).toThrow(/"__proto__" is refused/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses sweep sets whose names become the same folder, before the first question', async () => {
    const sweep = join(tmp, 'collide.json');
    writeFileSync(sweep, JSON.stringify({ 'a b': {}, a_b: { abstainBelow: 'none' } }));
    expect(() => readSweep(sweep)).toThrow(/"a b" and "a_b" both become the folder "a_b"/);
    const out = join(tmp, 'collide-out');
    const r = await cli('cli/eval.ts', ['--benchmark', 'mintaka', '--data', DATA, '--url', await dead(), '--sweep', sweep, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('both become the folder "a_b"');
    expect(r.stderr).not.toMatch(/connection refused/);
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
    writeFileSync(sweep, JSON.stringify({ Agent: {}, agent: {} }));
    expect(() => readSweep(sweep)).toThrow(/both become the folder/);
  });

  it('refuses a data file that repeats a question id, naming it, before the first question', async () => {
    const out = join(tmp, 'repeat-out');
    const r = await cli('cli/eval.ts', ['--benchmark', 'mintaka', '--data', mintakaFile('repeat.json', true), '--url', await dead(), '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('repeats question ids ("m1" ×2)');
    expect(existsSync(out)).toBe(false);
  });

  it('reads each reproduction spec of docs/tables as npm run table does: strict keys, a baseline among its rows, every pin well formed', () => {
    const dir = join(ROOT, 'docs/tables');
    const saved = process.env.BENCHMARK_DATA;
    process.env.BENCHMARK_DATA ??= '/benchmark-data';
    try {
      const names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
      expect(names).toEqual(['crag.json', 'hpropro.json', 'hqa.json', 'mintaka-three-modes.json']);
      for (const f of names) {
        const spec = readTableSpec(join(dir, f));
        expect(spec.systems.map((s) => s.name), f).toContain(spec.baseline);
        // Every column's file is pinned, but CRAG's: a cut of a 739 MB upstream file (docs/EVAL.md says how it is made).
        for (const b of spec.benchmarks) if (b.benchmark !== 'crag') expect(b.spec.sha256 ?? b.spec.gitBlob, `${f}: ${b.key}`).toBeTruthy();
      }
    } finally {
      if (saved === undefined) delete process.env.BENCHMARK_DATA;
    }
  });

  it('npm run table refuses a spec whose data is not the pinned file, whose names collide, or whose options reach a prototype, before the first question', async () => {
    const spec = (name: string, body: object) => {
      const file = join(tmp, name);
      writeFileSync(file, JSON.stringify(body));
      return file;
    };
    const systems = { agent: { mode: 'agent' }, closed: { mode: 'parametric' } };
    const cases: [string, object, RegExp][] = [
      ['pin.json', { benchmarks: { mintaka: { data: DATA, sha256: '0'.repeat(64) } }, systems }, /benchmarks\.mintaka\.data .* is not the file the spec pins \(sha256 [0-9a-f]{12}… ≠ 000000000000…\)/],
      ['blob.json', { benchmarks: { mintaka: { data: DATA, gitBlob: 'f'.repeat(40) } }, systems }, /benchmarks\.mintaka\.data .* is not the file the spec pins \(git blob [0-9a-f]{12}… ≠ ffffffffffff…\)/],
      ['names.json', { benchmarks: { mintaka: { data: DATA } }, systems: { 'a b': {}, a_b: {} } }, /"a b" and "a_b" both become the folder "a_b"/],
      ['column.json', { benchmarks: { mintaka: { data: DATA } }, systems: { ...systems, hqa: { byBenchmark: { qald9plus: { library: 'hqa-qald' } } } } }, /systems\.hqa\.byBenchmark\.qald9plus names no benchmark of the table/],
      ['proto.json', { benchmarks: { mintaka: { data: DATA } }, systems: { ...systems, bad: { options: JSON.parse('{"__proto__": {"x": 1}}') } } }, /"systems\.bad\.options\.__proto__" is refused/],
    ];
    for (const [name, body, message] of cases) {
      const out = join(tmp, `table-${name}`);
      const r = await cli('cli/table.ts', ['--spec', spec(name, body), '--url', await dead(), '--out', out]);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(message);
      expect(r.stderr).not.toMatch(STACK);
      expect(r.stderr).not.toMatch(/connection refused/);
      expect(existsSync(out), name).toBe(false);
    }
    // The right pins pass the check and go on to ask the (dead) service: the SHA-256, and the blob id git itself gives.
    const blob = execFileSync('git', ['hash-object', DATA], { encoding: 'utf8' }).trim();
    const pinned = await cli('cli/table.ts', ['--spec', spec('pinned.json', { benchmarks: { mintaka: { data: DATA, sha256: sha256File(DATA), gitBlob: blob } }, systems }), '--url', await dead(), '--out', join(tmp, 'table-pinned')]);
    expect(pinned.code).toBe(2);
    expect(pinned.stderr).toMatch(/connection refused/);
  });

  it('refuses /dev/zero as a data file, a folder as a file, and flags that do not fit (typed from their declaration)', async () => {
    const zero = await cli('cli/eval.ts', ['--benchmark', 'mintaka', '--data', '/dev/zero', '--url', await dead()]);
    console.log(`eval --data /dev/zero: exit ${zero.code} after ${zero.ms} ms, peak RSS ${zero.maxRssKb === null ? '?' : `${(zero.maxRssKb / 1024).toFixed(0)} MB`}`);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('/dev/zero is not a regular file');
    if (zero.maxRssKb !== null) expect(zero.maxRssKb).toBeLessThan(200 * 1024);
    expect((await cli('cli/eval.ts', ['--benchmark', 'mintaka', '--data', tmp])).stderr).toContain('is a folder, not a file');
    const flags: [string[], RegExp][] = [
      [['--limit', '0'], /--limit must be a whole number above 0, not "0"/],
      [['--limit', '3x'], /--limit must be a whole number/],
      [['--seed', '3'], /--seed needs --sample N/],
      [['--price-in', '1'], /--price-in and --price-out go together/],
      [['--epochs', '2', '--rehearse'], /--epochs and --rehearse do not go together/],
      [['--estimate', '--sweep', 'x.json'], /--estimate runs a pilot on its own/],
      [['--recipe', 'mine'], /--recipe must be one of paper, ours, not "mine"/],
    ];
    for (const [args, message] of flags) {
      const r = await cli('cli/eval.ts', ['--benchmark', 'mintaka', '--data', DATA, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
