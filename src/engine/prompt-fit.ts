import type { ChatMessage, ChatRequest } from '../llm/types';

/**
 * Prompts cut to a model's context window. A token is about four characters of English prose and nearer three in
 * numbers, tables and code; counting one per 3 ASCII characters and one per other character (CJK, emoji) stays above
 * what common tokenizers count, so a prompt that fits here fits the server.
 */
export const estimateTokens = (text: string): number => {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3) + other;
};

/** Role markers and template tokens around each message. */
const PER_MESSAGE = 8;

const textOf = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n'));

/** An assistant turn's native function calls go back to the server with it, names and arguments. */
const callsOf = (m: ChatMessage) => (m.toolCalls?.length ? m.toolCalls.map((c) => `${c.name}(${c.arguments})`).join('\n') : '');

export const promptTokens = (messages: readonly ChatMessage[]): number =>
  messages.reduce((sum, m) => sum + estimateTokens(textOf(m)) + estimateTokens(callsOf(m)) + PER_MESSAGE, 0);

/**
 * What a request sends beside its messages that the server's chat template also puts in the prompt: the definitions
 * of the functions it offers (native tool protocol) and the JSON schema of a structured reply. Nothing here can be
 * shortened, so it comes off the window before the messages are fitted.
 */
export const requestOverheadTokens = (request: Pick<ChatRequest, 'tools' | 'responseFormat'>): number =>
  (request.tools?.length ? estimateTokens(JSON.stringify(request.tools)) : 0) + (request.responseFormat ? estimateTokens(JSON.stringify(request.responseFormat.schema)) : 0);

export interface Fitted {
  messages: ChatMessage[];
  /** What was shortened, for the step's trace; empty when the prompt fitted as it was. */
  cuts: string[];
  before: number;
  after: number;
}

const OBSERVATION = /<<<OBSERVATION\n([\s\S]*?)\nOBSERVATION>>>/g;
const ANY_FENCE = /<<<([A-Z][A-Z0-9_]*)\n([\s\S]*?)\n\1>>>/g;
/** Fences that are never shortened: the question, and the trajectory that holds observations (they are cut inside it). */
const KEPT = new Set(['QUESTION', 'TRAJECTORY', 'OBSERVATION']);
const SHORT_OBSERVATION = 300;
const SHORT_DATA = 400;

const hidden = (n: number) => ` [... ${n} characters hidden to fit the model's context window]`;
const shorten = (body: string, keep: number) => (body.length > keep ? `${body.slice(0, keep)}${hidden(body.length - keep)}` : body);

/** Replaces the `index`-th match of `re` across the messages' text through `edit`. */
const editMatch = (messages: ChatMessage[], re: RegExp, index: number, edit: (whole: string, groups: string[]) => string): ChatMessage[] => {
  let seen = 0;
  return messages.map((m) => {
    if (typeof m.content !== 'string') return m;
    const content = m.content.replace(re, (whole, ...rest) => (seen++ === index ? edit(whole, rest.slice(0, -2) as string[]) : whole));
    return { ...m, content };
  });
};

const count = (messages: readonly ChatMessage[], re: RegExp) => messages.reduce((n, m) => n + (typeof m.content === 'string' ? [...m.content.matchAll(re)].length : 0), 0);

/**
 * Shortens a prompt until it fits `budget` tokens: first the old observations (oldest first, then harder), then the
 * worked examples the caller marked as `droppable`, then other fenced data (pages, tables), largest first. The question
 * and the last observation are never touched: they are what the model must answer now. A prompt that still does not fit
 * is returned as small as it got.
 */
export const fitPrompt = (input: readonly ChatMessage[], budget: number, droppable: readonly string[] = []): Fitted => {
  let messages = [...input];
  const before = promptTokens(messages);
  const cuts: string[] = [];
  const fits = () => promptTokens(messages) <= budget;
  if (fits()) return { messages, cuts, before, after: before };

  const observations = count(messages, OBSERVATION);
  for (const keep of [SHORT_OBSERVATION, 0]) {
    let cut = 0;
    for (let i = 0; i < observations - 1 && !fits(); i++) {
      messages = editMatch(messages, OBSERVATION, i, (whole, [body]) => {
        if (body.length <= keep + 80) return whole;
        cut++;
        return `<<<OBSERVATION\n${shorten(body, keep)}\nOBSERVATION>>>`;
      });
    }
    if (cut) cuts.push(`${cut} old observation${cut === 1 ? '' : 's'} shortened${keep ? ` to ${keep} characters` : ' to nothing'}`);
    if (fits()) break;
  }

  for (const block of droppable) {
    if (fits() || !block) break;
    const hit = messages.findIndex((m) => typeof m.content === 'string' && m.content.includes(block));
    if (hit < 0) continue;
    messages = messages.map((m, i) => (i === hit ? { ...m, content: (m.content as string).replace(block, '') } : m));
    cuts.push('worked examples dropped');
  }

  if (!fits()) {
    // Other data blocks, largest first, halved until they fit or are short.
    for (let round = 0; round < 12 && !fits(); round++) {
      let largest = -1;
      let size = SHORT_DATA;
      let i = 0;
      for (const m of messages) {
        if (typeof m.content !== 'string') continue;
        for (const [, label, body] of m.content.matchAll(ANY_FENCE)) {
          if (!KEPT.has(label) && body.length > size) [largest, size] = [i, body.length];
          i++;
        }
      }
      if (largest < 0) break;
      messages = editMatch(messages, ANY_FENCE, largest, (_w, [label, body]) => `<<<${label}\n${shorten(body, Math.max(SHORT_DATA, Math.floor(body.length / 2)))}\n${label}>>>`);
      if (!cuts.includes('data blocks shortened')) cuts.push('data blocks shortened');
    }
  }
  return { messages, cuts, before, after: promptTokens(messages) };
};
