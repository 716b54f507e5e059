import { pairHash, samePair, verdictBody, type VerdictBody } from '../../evidence/verdict-records';
import { DATA_FENCE_RULE, fence } from '../../text/prompt-data';
import type { RunOptions } from '../options';
import { structuredCall } from '../structured-step';
import type { AnswerDraft, RunContext, StepEvent } from '../types';
import type { StepAttribution } from './step-attribution';
import prompt from './verify.txt';
import { VERIFY_SPEC, verdictsOf } from './verify-reply';

/**
 * `options.supportCheck: "model"`: before an answer is stored, one model call (purpose `verify`) judges each verified
 * citation's answer–quote pair that no verdict covers yet, all pairs of the answer in one fenced prompt (a structured
 * step: under the native protocol the reply's JSON Schema goes with it). Each verdict
 * is recorded with the run's evidence under the pair's SHA-256 (src/evidence/verdict-records.ts), so the same pair is
 * never asked twice in a run, the attribution reads it there (it replaces the structural grade), and a replay of the
 * run's archive finds it without the model. A reply not in the expected form, or a call that fails, records nothing:
 * the citations keep their structural grade. The step's trace shows the check as a `verify` action and observation.
 */

/** How the run grades support: by structure only (default), or with a model's verdict on each pair. */
export type SupportCheck = 'structure' | 'model';

/** The one reading of `options.supportCheck` (its schema: COMMON_OPTIONS in src/engine/options.ts). */
export const supportCheckOf = (options: Partial<Pick<RunOptions, 'supportCheck'>>): SupportCheck => (options.supportCheck === 'model' ? 'model' : 'structure');

/** Where verdicts are kept: the run's evidence recording, and in a replay the archive it reads. */
export interface VerdictStore {
  /** A replaying run: what the archive holds for this pair (null when nothing), and the model is never asked. */
  replayed?(pair: string): Promise<unknown>;
  record(pair: string, body: VerdictBody): Promise<void>;
}

export interface SupportCheckParts {
  /** The question the run answers (a chat's standalone question). */
  question: string;
  options: Partial<Pick<RunOptions, 'supportCheck'>>;
  attribution: StepAttribution;
  /** The step's context: its metered model, and the protocol its purposes are spoken in (a reply schema under native). */
  ctx: RunContext;
  verdicts: VerdictStore;
  /** A sentence for the step's trace. */
  note: (text: string) => void;
  signal?: AbortSignal;
}

/** Pairs judged in one call: an answer's citations are at most a few per source. */
const MAX_PAIRS = 12;

const messages = (question: string, pairs: ReadonlyArray<{ answer: string; quote: string }>) => [
  { role: 'system' as const, content: `${prompt.trim()}\n\n${DATA_FENCE_RULE}` },
  {
    role: 'user' as const,
    content: [
      fence('QUESTION', question),
      ...pairs.map((p, i) => `Pair ${i + 1}\n${fence('ANSWER', p.answer)}\n${fence('PASSAGE', p.quote)}`),
      `Reply with the JSON object: one verdict for each pair from 1 to ${pairs.length}.`,
    ].join('\n\n'),
  },
];

type Pair = { answer: string; quote: string };

/** The check as the run's trace shows it: an action naming the pairs, an observation with each verdict. */
const traced = (pairs: readonly Pair[], verdicts: ReadonlyMap<number, string>, started: number, failure?: string): StepEvent[] => {
  const lines = pairs.map((p, i) => `${i + 1}. ${verdicts.get(i + 1) ?? 'no verdict (structural grade kept)'}: "${p.answer.slice(0, 80)}" in “${p.quote.slice(0, 160)}”`);
  return [
    { type: 'action', data: { tool: 'verify', input: { pairs: pairs.length } } },
    { type: 'observation', data: { tool: 'verify', output: [failure, ...lines].filter(Boolean).join('\n'), ms: Date.now() - started, ...(failure ? { error: true } : {}) } },
  ];
};

/** The verdicts a replayed archive holds for these pairs, each checked against the pair it was asked for. */
const fromArchive = async (parts: SupportCheckParts, pairs: readonly Pair[], hashes: string[], started: number): Promise<StepEvent[]> => {
  const found = new Map<number, string>();
  for (const [i, p] of pairs.entries()) {
    const body = verdictBody.safeParse(await parts.verdicts.replayed!(hashes[i]));
    if (!body.success || !samePair(body.data, { question: parts.question, ...p })) continue;
    await parts.verdicts.record(hashes[i], body.data);
    found.set(i + 1, body.data.support);
  }
  if (found.size < pairs.length) parts.note(`support check: ${pairs.length - found.size} of ${pairs.length} citation(s) have no verdict in the replayed archive and keep their structural grade`);
  return traced(pairs, found, started);
};

const checkAnswer = async (draft: AnswerDraft, parts: SupportCheckParts): Promise<StepEvent[]> => {
  const pairs = parts.attribution.unjudged(draft).slice(0, MAX_PAIRS);
  if (!pairs.length) return [];
  const started = Date.now();
  const hashes = await Promise.all(pairs.map((p) => pairHash(parts.question, p.answer, p.quote)));
  if (parts.verdicts.replayed) return fromArchive(parts, pairs, hashes, started);
  let verdicts: Map<number, 'supports' | 'mentions'> | undefined;
  try {
    const request = { purpose: 'verify' as const, messages: messages(parts.question, pairs), maxTokens: 32 + 24 * pairs.length };
    verdicts = verdictsOf((await structuredCall(parts.ctx, request, VERIFY_SPEC)).value, pairs.length);
  } catch (err) {
    if (parts.signal?.aborted) throw err;
    return traced(pairs, new Map(), started, `the verify call failed (${err instanceof Error ? err.message.slice(0, 200) : String(err)}); the citations keep their structural grade`);
  }
  if (!verdicts) return traced(pairs, new Map(), started, 'the verify reply was not in the expected form; the citations keep their structural grade');
  for (const [n, support] of verdicts) await parts.verdicts.record(hashes[n - 1], { support, question: parts.question, ...pairs[n - 1] });
  return traced(pairs, verdicts, started);
};

/**
 * Checks the support of every answer a step is about to store (nothing unless the run asked for it); the events it
 * returns go before the answer in the step's trace.
 */
export const checkSupport = async (events: readonly StepEvent[], parts: SupportCheckParts): Promise<StepEvent[]> => {
  if (supportCheckOf(parts.options) !== 'model') return [];
  const out: StepEvent[] = [];
  for (const e of events) if (e.type === 'answer') out.push(...(await checkAnswer(e.data, parts)));
  return out;
};
