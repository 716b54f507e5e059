import { Tokenizer } from 'htmlparser2';

/**
 * htmlparser2's tokenizer, stepping over plain runs of text and quoted attribute values in one tight loop. With
 * entities decoded it otherwise visits every character through its state switch (a third of a page's processing
 * time); in those states only `<`, `&` or the closing quote can change anything, so moving straight to the next one
 * emits the same events at the same offsets. Its own skip inside scripts, styles and comments (`fastForwardTo`)
 * becomes a string search. It reads three private fields of htmlparser2 10.1 (pinned in package.json); should a
 * release rename them, `FAST_STATES` is false (tests/web/page.test.ts says so) and the tokenizer is htmlparser2's
 * own, unchanged.
 */

/** The tokenizer's private reading position: `index` counts from the first write, `buffer` holds the current one. */
interface Position {
  buffer: string;
  index: number;
  offset: number;
}
type State = (this: Position, c: number) => void;
type Search = (this: Position, c: number) => boolean;

const LT = 0x3c;
const AMP = 0x26;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/**
 * Puts `index` just before the next `a` or `b` of the buffer (or its last character): the tokenizer's loop steps
 * onto it next, as `fastForwardTo` does.
 */
const skipTo = (t: Position, a: number, b: number) => {
  const { buffer } = t;
  let i = t.index - t.offset + 1;
  while (i < buffer.length) {
    const c = buffer.charCodeAt(i);
    if (c === a || c === b) break;
    i++;
  }
  t.index = i + t.offset - 1;
};

export class FastTokenizer extends Tokenizer {}

const original = Tokenizer.prototype as unknown as Record<string, State | undefined>;
const fast = FastTokenizer.prototype as unknown as Record<string, State>;
const search = Tokenizer.prototype as unknown as Record<string, Search | undefined>;
const probe = new Tokenizer({}, {} as never) as unknown as Partial<Position>;

/** Whether this htmlparser2 has the states and fields the fast path stands on. */
export const FAST_STATES =
  typeof original.stateText === 'function' &&
  typeof original.stateInAttributeValueDoubleQuotes === 'function' &&
  typeof original.stateInAttributeValueSingleQuotes === 'function' &&
  typeof search.fastForwardTo === 'function' &&
  typeof probe.buffer === 'string' &&
  typeof probe.index === 'number' &&
  typeof probe.offset === 'number';

/** A state that acts on `a` and `b` only: the character is handed to it, and any other starts a skip. */
const skipping = (state: State, a: number, b: number): State =>
  function (this: Position, c: number) {
    if (c === a || c === b) state.call(this, c);
    else skipTo(this, a, b);
  };

/**
 * `fastForwardTo`: moves `index` onto the next `c` and says true, or onto the buffer's last character and says false
 * (the loop steps past it).
 */
function forwardTo(this: Position, c: number): boolean {
  const at = this.buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
  this.index = (at < 0 ? this.buffer.length - 1 : at) + this.offset;
  return at >= 0;
}

if (FAST_STATES) {
  (FastTokenizer.prototype as unknown as Record<string, Search>).fastForwardTo = forwardTo;
  fast.stateText = skipping(original.stateText!, LT, AMP);
  fast.stateInAttributeValueDoubleQuotes = skipping(original.stateInAttributeValueDoubleQuotes!, DOUBLE_QUOTE, AMP);
  fast.stateInAttributeValueSingleQuotes = skipping(original.stateInAttributeValueSingleQuotes!, SINGLE_QUOTE, AMP);
}
