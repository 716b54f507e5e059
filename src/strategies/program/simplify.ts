import { DATA_FENCE_RULE, defuseProtocol, fence, oneLine } from '../../text/prompt-data';
import type { RunContext } from '../../engine/types';
import { rankBm25 } from '../../web/bm25';
import type { ProgramContext } from './input';
import simplifyPaperPrompt from './prompts/simplify-paper.txt';
import simplifyPrompt from './prompts/simplify.txt';
import { retrieveSentences } from './sentence-retriever';
import type { ProgramOptions } from './options';
import { PROGRAM_RECIPES } from './recipes';
import { thought, type ProgramState } from './state';

const SIMPLIFY_PASSAGES = 3;

/** Takes a rewrite only when it is one plausible question (not empty, not an essay). */
const rewrittenQuestion = (reply: string, original: string) => {
  const rewritten = reply.trim().split('\n')[0].replace(/^(rewritten |simplified )?question\s*:\s*/i, '').trim();
  const usable = rewritten && rewritten.length <= original.length * 3 + 40;
  return usable && rewritten !== original ? rewritten : undefined;
};

/** Both ways of step (a) end alike: the model's rewrite (if it is one) becomes the question, and a thought says so. */
const withSimplified = (state: ProgramState, replyText: string, say: (rewritten: string | undefined) => string) => {
  const rewritten = rewrittenQuestion(replyText, state.question);
  return { state: { ...state, phase: 'generate' as const, question: rewritten ?? state.question }, events: [thought(say(rewritten))] };
};

/**
 * Step (a), the paper's way: sentences of the linked passages that match the question (TF-IDF n-grams and shared
 * substring) become "cell: sentence" knowledge, and the model substitutes it into the question. No match, no call.
 */
const simplifyBySentences = async (state: ProgramState, ctx: RunContext, input: ProgramContext) => {
  const knowledge = retrieveSentences(state.question, input);
  if (!knowledge.length) {
    return { state: { ...state, phase: 'generate' as const }, events: [thought('No passage sentence matches the question; it stays as it is.')] };
  }
  const reply = await ctx.llm.chat({
    purpose: 'simplify',
    messages: [{ role: 'user', content: simplifyPaperPrompt.replace('{{question}}', () => oneLine(state.question)).replace('{{knowledge}}', () => defuseProtocol(knowledge.join('\n'))).trim() }],
    maxTokens: 128,
  });
  return withSimplified(state, reply.text, (rewritten) =>
    rewritten
      ? `Substituted what the passages say into the question (${knowledge.length} matching sentence(s)): "${rewritten}"`
      : 'The matching passage sentences did not change the question.',
  );
};

// The words that never count when matching a question to the linked passages ("how many", "this" included).
const PASSAGE_STOPWORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were which who what when where with how many much did does do'.split(' '),
);

/** Step (a), ours: retrieve the passages closest to the question (BM25) and let the model name the cells it describes. */
const simplifyByPassages = async (state: ProgramState, ctx: RunContext, input: ProgramContext) => {
  const owners = new Map<string, string>();
  input.table.rows.forEach((cells, r) =>
    cells.forEach((c, j) => c.links?.forEach((l) => owners.has(l) || owners.set(l, `row ${r}, column "${input.table.columns[j] ?? j}": ${c.text}`))),
  );
  const docs = Object.entries(input.passages).map(([key, text]) => ({ key, text }));
  const top = rankBm25(state.question, docs, { stopwords: PASSAGE_STOPWORDS }).slice(0, SIMPLIFY_PASSAGES);
  if (!top.length) {
    return { state: { ...state, phase: 'generate' as const }, events: [thought('No linked passage matches the question; it stays as it is.')] };
  }
  const evidence = top
    .map((t) => `Cell (${owners.get(t.key) ?? 'not in the table'})\nPassage: ${input.passages[t.key].slice(0, 1200)}`)
    .join('\n\n');
  const reply = await ctx.llm.chat({
    purpose: 'simplify',
    messages: [
      { role: 'system', content: `${simplifyPrompt.trim()}\n\n${DATA_FENCE_RULE}` },
      {
        role: 'user',
        content: `Table columns: ${oneLine(input.table.columns.join(' | '))}\n\n${fence('PASSAGES', evidence)}\n\n${fence('QUESTION', state.question)}`,
      },
    ],
    maxTokens: 128,
  });
  return withSimplified(state, reply.text, (rewritten) =>
    rewritten
      ? `Simplified the question using the passages most related to it (${top.map((t) => t.key).join(', ')}): "${rewritten}"`
      : 'Looked for descriptions in the question that name a table cell; none needed rewriting.',
  );
};

/** Step (a): rewrite the question with what the linked passages say about its cells, the recipe's way. */
export const simplify = (state: ProgramState, ctx: RunContext<ProgramOptions>, input: ProgramContext) =>
  PROGRAM_RECIPES[ctx.options.recipe].simplifyFrom === 'sentences' ? simplifyBySentences(state, ctx, input) : simplifyByPassages(state, ctx, input);
