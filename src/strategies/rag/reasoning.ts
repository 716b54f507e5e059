import { DATA_FENCE_RULE, fence } from '../../text/prompt-data';
import type { RunContext, StepOutcome } from '../../engine/types';
import { answerEvent, normalizeAnswer } from './answer';
import paperPrompt from './prompts/reasoning-paper.txt';
import prompt from './prompts/reasoning.txt';
import summarizePrompt from './prompts/summarize.txt';
import { reasoningInput } from './references';
import { readContext } from './retrieve';
import type { RagOptions } from './options';
import { RAG_RECIPES } from './recipes';
import type { RagState } from './state';

const MAX_DRAFT = 4000;

/** Reads the strict format; null when the answer marker is missing or empty. */
export const parseReasoning = (text: string): { reasoning: string; answer: string; falsePremise: boolean } | null => {
  const answer = /<answer>([\s\S]*?)<\/answer>/i.exec(text)?.[1]?.trim();
  if (!answer) return null;
  const reasoning = /<reasoning>([\s\S]*?)<\/reasoning>/i.exec(text)?.[1]?.trim() ?? '';
  const falsePremise = /<false_premise>\s*yes\s*<\/false_premise>/i.test(text);
  return { reasoning, answer, falsePremise };
};

/**
 * Reasoning module: every reference into one prompt that walks the model through guiding questions (the paper's, in
 * our words, under `recipe: "paper"`; ours add the recency rule and the stricter abstention wording). A well-formed
 * reply ends the run.
 */
export const reasoningStep = async (state: RagState, ctx: RunContext, o: RagOptions): Promise<StepOutcome<RagState>> => {
  const { queryTime } = readContext(ctx.request.context);
  const started = Date.now();
  const reply = await ctx.llm.chat({
    purpose: 'reasoning',
    messages: [
      { role: 'system', content: `${(RAG_RECIPES[o.recipe].publishedReasoningPrompt ? paperPrompt : prompt).trim()}\n\n${DATA_FENCE_RULE}` },
      { role: 'user', content: reasoningInput(ctx.request.question, queryTime, state) },
    ],
    maxTokens: 800,
  }, { answer: true });
  const parsed = parseReasoning(reply.text);
  const action = { type: 'action' as const, data: { tool: 'reasoning', input: { references: state.refs.length + state.kgResults.length, calculations: state.calculations.length } } };
  if (!parsed) {
    return {
      state: { ...state, draft: reply.text.slice(0, MAX_DRAFT), phase: 'summarize' },
      events: [action, { type: 'observation', data: { tool: 'reasoning', output: 'the reply did not follow the answer format; handing it to the summariser', ms: Date.now() - started, error: true } }],
    };
  }
  const answer = normalizeAnswer(parsed.answer, parsed.falsePremise);
  return {
    state,
    done: true,
    events: [
      action,
      { type: 'observation', data: { tool: 'reasoning', output: `${parsed.reasoning}\nAnswer: ${parsed.answer}${parsed.falsePremise ? '\nFalse premise: yes' : ''}`, ms: Date.now() - started } },
      { type: 'thought', data: { text: parsed.reasoning || 'Answered from the references.' } },
      answerEvent(answer, state, parsed.answer),
    ],
  };
};

/** Backup summariser: pulls the answer out of a reasoning reply that broke the format. */
export const summarizeStep = async (state: RagState, ctx: RunContext): Promise<StepOutcome<RagState>> => {
  const started = Date.now();
  const reply = await ctx.llm.chat({
    purpose: 'summarize',
    messages: [
      { role: 'system', content: `${summarizePrompt.trim()}\n\n${DATA_FENCE_RULE}` },
      // The draft was written over quoted pages: it is data for the summariser too.
      { role: 'user', content: `${fence('QUESTION', ctx.request.question)}\n\n${fence('DRAFT', state.draft ?? '')}` },
    ],
    maxTokens: 80,
  });
  const line = /answer\s*:\s*(.+)/i.exec(reply.text)?.[1] ?? reply.text.trim().split('\n')[0] ?? '';
  const answer = normalizeAnswer(line, false);
  return {
    state: { ...state, draft: undefined },
    done: true,
    events: [
      { type: 'action', data: { tool: 'summarize', input: { draftChars: state.draft?.length ?? 0 } } },
      { type: 'observation', data: { tool: 'summarize', output: `Answer: ${answer}`, ms: Date.now() - started } },
      answerEvent(answer, state, line.trim()),
    ],
  };
};
