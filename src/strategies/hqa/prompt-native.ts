import type { ChatMessage } from '../../llm/types';
import { DATA_FENCE_RULE, fence, oneLine } from '../../text/prompt-data';
import { fittedObservations } from './prompt';
import agentNative from './prompts/agent-native.txt';
import { DECLARATION_LINES, SCOPE_TEXT, sourcesOfScope, type Scope } from './scope';
import type { Turn } from './trace';

/** The system prompt under the native tool protocol: the tools go as functions, so only the answer's format is text. */
export const nativeSystemPrompt = (scope: Scope = 'hybrid'): string => {
  const text = SCOPE_TEXT[scope];
  const declare = sourcesOfScope(scope).map((s) => `${DECLARATION_LINES[s]}\n`).join('');
  return agentNative
    .trim()
    .replace('{{scope}}', text.scope)
    .replace('{{declare}}\n', declare)
    .replace('{{guidance}}', text.guidance.map((g) => `- ${g}\n`).join('')) + `\n\n${DATA_FENCE_RULE}`;
};

/** The worked examples are solution processes in the text protocol: shown as reasoning to follow, not as a format. */
export const nativeShots = (examples: readonly string[]): string => {
  const shots = examples.map((e) => e.trim());
  if (!shots.length) return '';
  return `Worked examples of the reasoning (written in a text format; you call the tools as functions instead):\n\n${shots.join('\n\n---\n\n')}\n\n---\n\nNow the real question.\n`;
};

/** A result as the model reads it: fenced, so a page or query result cannot pass for the model's own words. */
const observed = (observation: string | undefined) => fence('OBSERVATION', observation ?? '');

/**
 * One model turn of the trajectory as messages: its thought with its calls, then a tool message per call in the order
 * asked. A turn without a native call (a call written as text, a reply that needed the format explained) is the
 * model's text followed by the observation the loop wrote.
 */
const turnMessages = (group: readonly Turn[], observations: ReadonlyArray<string | undefined>): ChatMessage[] => {
  const [head] = group;
  const thought = head.thought ? `Thought: ${head.thought}` : '';
  const calls = group.filter((t) => t.call);
  if (!calls.length) {
    const wrote = head.tool ? `${thought}\nAction: ${head.tool}\nAction Input: ${head.input ?? ''}`.trim() : thought;
    return [
      { role: 'assistant', content: wrote || '(no reply)' },
      { role: 'user', content: `Observation: ${observed(observations[0])}` },
    ];
  }
  return [
    { role: 'assistant', content: thought, toolCalls: calls.map((t) => ({ id: t.call!.id, name: t.tool!, arguments: t.call!.arguments })) },
    ...group.map((t, i): ChatMessage => ({ role: 'tool', toolCallId: t.call?.id ?? '', content: observed(observations[i]) })),
  ];
};

/** The turns grouped by the model reply that made them (a reply's parallel calls are `joined` to its first). */
const byReply = (turns: readonly Turn[]): number[][] => {
  const groups: number[][] = [];
  turns.forEach((t, i) => (t.joined && groups.length ? groups[groups.length - 1].push(i) : groups.push([i])));
  return groups;
};

/** The messages of one agent call under the native tool protocol (the examples may be dropped whole to fit a window). */
export const nativeAgentMessages = (input: {
  examples: readonly string[];
  question: string;
  turns: readonly Turn[];
  budget?: number;
  scope?: Scope;
}): ChatMessage[] => {
  const observations = fittedObservations(input.turns, input.budget);
  // The question keeps its one protocol line, as in the text protocol, and the examples lead the user message.
  const user = `${nativeShots(input.examples)}Question: ${oneLine(input.question)}`;
  return [
    { role: 'system', content: nativeSystemPrompt(input.scope) },
    { role: 'user', content: user },
    ...byReply(input.turns).flatMap((group) => turnMessages(group.map((i) => input.turns[i]), group.map((i) => observations[i]))),
  ];
};
