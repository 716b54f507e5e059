import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { localEmbedder } from '../../src/embeddings/local';
import { localD1VectorIndex } from '../../src/vectors/local-d1';
import { greedyMap } from '../../src/fewshot/dpp';
import { selectExamples, selectIndicesWithQuality, type SelectableExample } from '../../src/fewshot/select';

const tools = (symbols: string) =>
  [...symbols].map((c) => ({ s: 'wikisearch', r: 'read', i: 'getWikidataID', g: 'generateQuery', q: 'runQuery', l: 'getLabel' })[c]!);

/**
 * Hand-built library. Sequences: A = "sr" (wikisearch, read), B = "igql", C = "srigql", D = "igq".
 * Similarity S = 1 − lev/maxlen:  S(A,B) = 1 − 4/4 = 0,  S(A,C) = 1 − 4/6 = 1/3,  S(A,D) = 1 − 3/3 = 0,
 * S(B,C) = 1 − 2/6 = 2/3,  S(B,D) = 1 − 1/4 = 3/4,  S(C,D) = 1 − 3/6 = 1/2. This matrix is already PSD
 * (eigenvalues ≈ 2.31, 1.10, 0.40, 0.19), so the kernel equals it and the arithmetic below holds.
 */
const library: SelectableExample[] = [
  { id: 'e0', question: 'q0', toolSequence: tools('sr') }, //     A  q = 0.90
  { id: 'e1', question: 'q1', toolSequence: tools('sr') }, //     A  q = 0.85
  { id: 'e2', question: 'q2', toolSequence: tools('igql') }, //   B  q = 0.80
  { id: 'e3', question: 'q3', toolSequence: tools('srigql') }, // C  q = 0.50
  { id: 'e4', question: 'q4', toolSequence: tools('igq') }, //    D  q = 0.75
  { id: 'e5', question: 'q5', toolSequence: tools('sr') }, //     A  q = 0.70
];
const quality = [0.9, 0.85, 0.8, 0.5, 0.75, 0.7];
const pick = (mode: 'dpp' | 'relevance' | 'diversity' | 'random' | 'zero-shot', seed?: number) =>
  selectIndicesWithQuality({ library, quality, k: 3, mode, seed }).map((i) => library[i].id);

describe('few-shot selection on a hand-built library', () => {
  it('relevance takes the three highest qualities, even though they share one tool sequence', () => {
    // 0.90 (e0) > 0.85 (e1) > 0.80 (e2)
    expect(pick('relevance')).toEqual(['e0', 'e1', 'e2']);
  });

  it('DPP trades relevance against tool-sequence diversity', () => {
    // Gain of adding i = det(L_{Y+i}) / det(L_Y) = q_i² · (1 − s_iᵀ S_Y⁻¹ s_i).
    // Pick 1: q² = .81, .7225, .64, .25, .5625, .49                               → e0
    // Pick 2 (given e0, A): e1 = .7225·(1−1²) = 0; e2 = .64·(1−0) = .64;
    //   e3 = .25·(1 − (1/3)²) = .2222; e4 = .5625·(1−0) = .5625; e5 = 0              → e2
    // Pick 3 (given e0, e2; S(A,B) = 0 so S_Y = I): gain = q²·(1 − S(A,i)² − S(B,i)²)
    //   e3 = .25·(1 − 1/9 − 4/9) = .1111;  e4 = .5625·(1 − 0 − 9/16) = .2461; e1 = e5 = 0 → e4
    expect(pick('dpp')).toEqual(['e0', 'e2', 'e4']);
  });

  it('diversity starts from the most relevant example, then maximises tool-sequence diversity', () => {
    // Pick 1: the most relevant                                                 → e0 (A)
    // Pick 2: 1 − S(A,i)²: e2 = 1, e3 = 8/9, e4 = 1, e1 = e5 = 0; tie e2/e4, broken by relevance → e2
    // Pick 3: 1 − S(A,i)² − S(B,i)²: e3 = 1 − 1/9 − 4/9 = .4444 > e4 = 1 − 0 − 9/16 = .4375 → e3
    expect(pick('diversity')).toEqual(['e0', 'e2', 'e3']);
  });

  it('diversity depends on the question: another most-relevant example changes the whole pick', () => {
    const closeToC = [0.1, 0.2, 0.3, 0.9, 0.4, 0.5];
    const ours = selectIndicesWithQuality({ library, quality: closeToC, k: 3, mode: 'diversity' }).map((i) => library[i].id);
    // Pick 1: e3 (C). Pick 2: 1 − S(C,i)²: A items 8/9, D 3/4, B 5/9; among the A items the most relevant → e5.
    expect(ours.slice(0, 2)).toEqual(['e3', 'e5']);
    expect(ours).not.toEqual(pick('diversity'));
    // The paper: the anchor, then the k − 1 sequences least like it (S(C,A) = 1/3 < S(C,D) = 1/2 < S(C,B) = 2/3).
    const paper = selectIndicesWithQuality({ library, quality: closeToC, k: 3, mode: 'diversity', diversity: 'least-similar' }).map((i) => library[i].id);
    expect(paper).toEqual(['e3', 'e5', 'e1']);
  });

  it('zero-shot selects nothing; random is reproducible per seed', () => {
    expect(pick('zero-shot')).toEqual([]);
    expect(pick('random', 42)).toEqual(pick('random', 42));
    const draws = new Set(Array.from({ length: 20 }, (_, s) => pick('random', s).join(',')));
    expect(draws.size).toBeGreaterThan(5);
    for (const d of draws) expect(new Set(d.split(',')).size).toBe(3);
  });

  it('fills up by relevance when every remaining example repeats a chosen sequence', () => {
    const same = library.filter((e) => e.toolSequence.length === 2); // e0, e1, e5: all "sr"
    const picks = selectIndicesWithQuality({ library: same, quality: [0.5, 0.9, 0.7], k: 3, mode: 'dpp' });
    expect(picks).toEqual([1, 2, 0]);
  });
});

const questions: SelectableExample[] = [
  { id: 'm/01', benchmark: 'mintaka', question: 'Who directed the film Titanic?', toolSequence: tools('sr') },
  { id: 'm/02', benchmark: 'mintaka', question: 'Who directed the film Avatar?', toolSequence: tools('sr') },
  { id: 'm/03', benchmark: 'mintaka', question: 'Which film directed by James Cameron came out first?', toolSequence: tools('igql') },
  { id: 'm/04', benchmark: 'mintaka', question: 'How tall is Mount Everest?', toolSequence: tools('igq') },
  { id: 'm/05', benchmark: 'mintaka', question: 'What is the population of Lagos?', toolSequence: tools('srigql') },
];

describe('selectExamples with an embedder', () => {
  const embedder = localEmbedder();
  const question = 'Who directed the film Terminator?';

  it('relevance ranks by question similarity; DPP swaps the duplicate tool sequence for a different one', async () => {
    const rel = await selectExamples({ question, library: questions, k: 2, mode: 'relevance', embedder });
    expect(rel.map((e) => e.id).sort()).toEqual(['m/01', 'm/02']);
    const dpp = await selectExamples({ question, library: questions, k: 2, mode: 'dpp', embedder });
    expect(dpp).toHaveLength(2);
    expect(dpp.map((e) => e.toolSequence.join())).not.toEqual(rel.map((e) => e.toolSequence.join()));
    expect(['m/01', 'm/02']).toContain(dpp[0].id);
  });

  it('with a vector index: stores examples once under fewshot:<benchmark> and selects the same', async () => {
    const vectors = localD1VectorIndex(env.DB);
    const count = async () =>
      (await env.DB.prepare("SELECT COUNT(*) AS n FROM vectors WHERE namespace = 'fewshot:mintaka'").first<{ n: number }>())!.n;
    const inMemory = await selectExamples({ question, library: questions, mode: 'dpp', embedder });
    const first = await selectExamples({ question, library: questions, mode: 'dpp', embedder, vectors });
    expect(await count()).toBe(5);
    const copy = questions.map((e) => ({ ...e })); // a new array: no in-isolate memo, so `has` is consulted
    const second = await selectExamples({ question, library: copy, mode: 'dpp', embedder, vectors });
    expect(await count()).toBe(5);
    expect(first.map((e) => e.id)).toEqual(inMemory.map((e) => e.id));
    expect(second.map((e) => e.id)).toEqual(inMemory.map((e) => e.id));
  });

  it('zero-shot and k = 0 return nothing without embedding', async () => {
    const failing = { name: 'boom', dims: 3, embed: async () => Promise.reject(new Error('should not embed')) };
    expect(await selectExamples({ question, library: questions, mode: 'zero-shot', embedder: failing })).toEqual([]);
    expect(await selectExamples({ question, library: questions, k: 0, embedder: failing })).toEqual([]);
    expect(await selectExamples({ question, library: questions, mode: 'random', seed: 3, embedder: failing })).toHaveLength(3);
  });
});

describe('fast greedy MAP', () => {
  const det = (m: number[][]): number => {
    const a = m.map((r) => [...r]);
    let d = 1;
    for (let c = 0; c < a.length; c++) {
      let p = c;
      for (let r = c + 1; r < a.length; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
      if (a[p][c] === 0) return 0;
      if (p !== c) [a[p], a[c]] = [a[c], a[p]], (d = -d);
      d *= a[c][c];
      for (let r = c + 1; r < a.length; r++) {
        const f = a[r][c] / a[c][c];
        for (let k = c; k < a.length; k++) a[r][k] -= f * a[c][k];
      }
    }
    return d;
  };

  it('picks what the naive "maximise det(L_Y) one item at a time" picks, on random kernels', () => {
    let x = 12345;
    const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let trial = 0; trial < 25; trial++) {
      const n = 9;
      // S = normalised Gram matrix of random 4-d features: PSD with unit diagonal.
      const f = Array.from({ length: n }, () => {
        const v = Array.from({ length: 4 }, () => rnd() - 0.3);
        const norm = Math.hypot(...v);
        return v.map((c) => c / norm);
      });
      const s = f.map((a) => f.map((b) => a.reduce((t, c, i) => t + c * b[i], 0)));
      const q = Array.from({ length: n }, () => 0.2 + rnd());
      const l = s.map((row, i) => row.map((v, j) => q[i] * v * q[j]));
      const naive: number[] = [];
      for (let step = 0; step < 4; step++) {
        let best = -1;
        let bestDet = -Infinity;
        for (let i = 0; i < n; i++) {
          if (naive.includes(i)) continue;
          const y = [...naive, i];
          const d = det(y.map((a) => y.map((b) => l[a][b])));
          if (d > bestDet + 1e-12) (best = i), (bestDet = d);
        }
        naive.push(best);
      }
      const { picks } = greedyMap({ n, k: 4, quality: q, similarityRow: (j) => s[j], similarityDiagonal: (i) => s[i][i] });
      expect(picks).toEqual(naive);
    }
  });
});
