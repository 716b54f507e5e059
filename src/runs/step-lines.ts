import type { EventType } from '../engine/types';

const MAX_OBSERVATION_CHARS = 1_500;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/**
 * One line per stored step, in the words a reader of the run's reasoning sees: a chat UI's "thinking" panel
 * (reasoning_content) and MCP's progress messages. Steps a reader has no line for (run, answer, done) are undefined.
 */
export const reasoningLine = (type: EventType, data: Record<string, unknown>): string | undefined => {
  switch (type) {
    case 'thought':
      return `${String(data.text ?? '').trim()}\n`;
    case 'action':
      return `Action: ${String(data.tool)}(${typeof data.input === 'string' ? data.input : JSON.stringify(data.input)})\n`;
    case 'observation':
      return `Observation${data.error ? ' (error)' : ''}: ${clip(String(data.output ?? ''), MAX_OBSERVATION_CHARS)}\n`;
    case 'error':
      return `Error (${String(data.code)}): ${String(data.message)}\n`;
    default:
      return undefined;
  }
};
