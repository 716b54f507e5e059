import type { ChatMessage, LLM, Purpose } from '../llm/types';
import type { Usage } from './types';

/**
 * How much of each prompt repeats the start of the previous prompt of the same purpose: the part a provider's prefix
 * cache (vLLM's automatic prefix caching, OpenAI's prompt caching) can serve without computing it again. Measured in
 * characters of the messages as sent (role and text of each, in order), after any fitting to the context window.
 * An agent's step n+1 extends step n's prompt, so its share is high; a prompt that moves its fixed part behind
 * something that changes per call shows up here as a low share.
 */

/** The last prompt of each purpose, kept for the run while its object lives (not stored: a resumed run starts over). */
export class PromptHistory {
  private readonly last = new Map<Purpose, string>();

  /** Remembers `text` as the purpose's latest prompt and returns how many leading characters it shares with the one before (undefined for the first). */
  swap(purpose: Purpose, text: string): number | undefined {
    const before = this.last.get(purpose);
    this.last.set(purpose, text);
    return before === undefined ? undefined : commonPrefixLength(before, text);
  }
}

const textOf = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n'));

/** The prompt as one text, message by message, as a chat template lays it out (roles included). */
export const promptText = (messages: readonly ChatMessage[]): string => messages.map((m) => `<${m.role}>\n${textOf(m)}\n`).join('');

export const commonPrefixLength = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

/** Adds one call that had a predecessor of its purpose: its characters, and those repeating that predecessor's start. */
export const addPromptReuse = (usage: Usage, purpose: Purpose, chars: number, repeated: number): Usage => {
  const reuse = (usage.promptReuse ??= {});
  const p = (reuse[purpose] ??= { calls: 0, chars: 0, repeatedChars: 0, share: 0 });
  p.calls += 1;
  p.chars += chars;
  p.repeatedChars += repeated;
  p.share = p.chars ? Math.round((p.repeatedChars / p.chars) * 1000) / 1000 : 0;
  return usage;
};

/** Measures every prompt that goes out through `inner` against the previous one of its purpose (only calls that got an answer). */
export const reuseMeter = (inner: LLM, history: PromptHistory, usage: Usage): LLM => ({
  ...inner,
  async chat(request, scope) {
    const result = await inner.chat(request, scope);
    const text = promptText(request.messages);
    const repeated = history.swap(request.purpose, text);
    if (repeated !== undefined) addPromptReuse(usage, request.purpose, text.length, repeated);
    return result;
  },
});
