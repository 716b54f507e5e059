import type { Delta } from '../engine/live-deltas';

/** How much of the model's latest text we keep to recognise a thought it already showed. */
const RECENT_CHARS = 4_000;

/**
 * Turns a run's live `delta` events into text for a "thinking" panel, between the lines of its stored steps: each
 * model call's text under a `Model (purpose):` label (again whenever another call or a step came in between, since
 * calls of one step interleave), a retried call marked so its broken text is not read as part of the new one, and
 * every stored step's line on a line of its own. It is the model's draft, never the answer: the run's answer is only
 * what its `answer` event says (the answer is composed and attributed after the calls).
 */
export const liveDraft = () => {
  let lastCall: number | undefined;
  let atLineStart = true;
  // The model's text since the last stored step, bounded: a thought parsed from it need not show twice.
  let recent = '';
  const newLine = () => (atLineStart ? '' : '\n');
  const mark = (note: string) => {
    const out = `${newLine()}(${note})\n`;
    atLineStart = true;
    lastCall = undefined;
    return out;
  };
  return {
    /** The panel text a delta adds (may be empty). */
    delta(d: Delta): string {
      let out = d.retry ? mark(`the ${d.purpose} call was retried: its text above does not count`) : '';
      if (d.skipped) out += mark("some of the model's text was skipped here: this stream was read slower than it was written");
      if (!d.text) return out;
      if (d.call !== lastCall) {
        out += `${newLine()}Model (${d.purpose}): `;
        lastCall = d.call;
      }
      out += d.text;
      atLineStart = d.text.endsWith('\n');
      recent = (recent + d.text).slice(-RECENT_CHARS);
      return out;
    },
    /**
     * A stored step's line, on a line of its own; empty for a thought whose text the model's streamed reply already
     * showed word for word.
     */
    step(type: string, line: string, data: Record<string, unknown>): string {
      const shown = type === 'thought' && typeof data.text === 'string' && data.text.trim() !== '' && recent.includes(data.text.trim());
      const out = shown ? '' : `${newLine()}${line}`;
      if (!shown) atLineStart = line.endsWith('\n');
      recent = '';
      lastCall = undefined;
      return out;
    },
    /** The stream was reopened (a broken stream, or a quiet one): deltas sent meanwhile are gone for good (never replayed). */
    reopened(): string {
      return lastCall === undefined ? '' : mark("stream reopened: some of the model's text in between may be missing");
    },
  };
};
