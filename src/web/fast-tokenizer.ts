import { Tokenizer } from 'htmlparser2';

/**
 * htmlparser2's tokenizer, stepping over runs of characters that change nothing in one tight loop. With entities
 * decoded it otherwise visits every character of text, attribute values and names through its state switch (a third
 * of a page's processing time); in those states only a few characters act (`<` and `&` in text, the closing quote and
 * `&` in a quoted value, the end of a name), so moving straight to the next one emits the same events at the same
 * offsets. Its own skip inside scripts, styles and comments (`fastForwardTo`) becomes a string search. It reads three
 * private fields of htmlparser2 10.1 (pinned in package.json); should a release rename them, `FAST_STATES` is false
 * (tests/web/fast-tokenizer.test.ts says so) and the tokenizer is htmlparser2's own, unchanged.
 */

/** The tokenizer's private reading position: `index` counts from the first write, `buffer` holds the current one. */
interface Position {
  buffer: string;
  index: number;
  offset: number;
}
type State = (this: Position, c: number) => void;
type Search = (this: Position, c: number) => boolean;

/** The characters each state acts on, one bit per state; every character from 128 up is plain in all of them. */
const TEXT = 1;
const DOUBLE_QUOTED = 2;
const SINGLE_QUOTED = 4;
const TAG_NAME = 8;
const ATTRIBUTE_NAME = 16;
const CLOSING_TAG_NAME = 32;
const ACTS = new Uint8Array(128);
const acts = (chars: string, states: number) => {
  for (const ch of chars) ACTS[ch.charCodeAt(0)] |= states;
};
// htmlparser2's isWhitespace: space, \n, \t, \f, \r.
const WHITESPACE = ' \n\t\f\r';
acts('<&', TEXT);
acts('"&', DOUBLE_QUOTED);
acts("'&", SINGLE_QUOTED);
acts(`${WHITESPACE}/>`, TAG_NAME | ATTRIBUTE_NAME);
acts('=', ATTRIBUTE_NAME);
acts(`${WHITESPACE}>`, CLOSING_TAG_NAME);

/**
 * Puts `index` just before the next character the state acts on (or on the buffer's last character): the tokenizer's
 * loop steps onto it next, as `fastForwardTo` does.
 */
const skip = (t: Position, state: number) => {
  const { buffer } = t;
  let i = t.index - t.offset + 1;
  while (i < buffer.length) {
    const c = buffer.charCodeAt(i);
    if (c < 128 && (ACTS[c] & state) !== 0) break;
    i++;
  }
  t.index = i + t.offset - 1;
};

export class FastTokenizer extends Tokenizer {}

const original = Tokenizer.prototype as unknown as Record<string, State | undefined>;
const fast = FastTokenizer.prototype as unknown as Record<string, State | Search>;
const search = Tokenizer.prototype as unknown as Record<string, Search | undefined>;
const probe = new Tokenizer({}, {} as never) as unknown as Partial<Position>;

/** htmlparser2's states stepped over. */
const SKIPPED_STATES = [
  'stateText',
  'stateInAttributeValueDoubleQuotes',
  'stateInAttributeValueSingleQuotes',
  'stateInTagName',
  'stateInAttributeName',
  'stateInClosingTagName',
];

/** Whether this htmlparser2 has the states and fields the fast path stands on. */
export const FAST_STATES =
  SKIPPED_STATES.every((name) => typeof original[name] === 'function') &&
  typeof search.fastForwardTo === 'function' &&
  typeof probe.buffer === 'string' &&
  typeof probe.index === 'number' &&
  typeof probe.offset === 'number';

/**
 * `fastForwardTo`: moves `index` onto the next `c` and says true, or onto the buffer's last character and says false
 * (the loop steps past it).
 */
function forwardTo(this: Position, c: number): boolean {
  const at = this.buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
  this.index = (at < 0 ? this.buffer.length - 1 : at) + this.offset;
  return at >= 0;
}

/**
 * The states, each acting on its few characters and skipping the rest. One function apiece, so each calls its own
 * original directly (a shared wrapper would make that call site see all six).
 */
const skippingStates = (): Record<string, State> => {
  const text = original.stateText!;
  const doubleQuoted = original.stateInAttributeValueDoubleQuotes!;
  const singleQuoted = original.stateInAttributeValueSingleQuotes!;
  const tagName = original.stateInTagName!;
  const attributeName = original.stateInAttributeName!;
  const closingTagName = original.stateInClosingTagName!;
  const actsIn = (c: number, state: number) => c < 128 && (ACTS[c] & state) !== 0;
  return {
    stateText(this: Position, c: number) {
      if (actsIn(c, TEXT)) text.call(this, c);
      else skip(this, TEXT);
    },
    stateInAttributeValueDoubleQuotes(this: Position, c: number) {
      if (actsIn(c, DOUBLE_QUOTED)) doubleQuoted.call(this, c);
      else skip(this, DOUBLE_QUOTED);
    },
    stateInAttributeValueSingleQuotes(this: Position, c: number) {
      if (actsIn(c, SINGLE_QUOTED)) singleQuoted.call(this, c);
      else skip(this, SINGLE_QUOTED);
    },
    stateInTagName(this: Position, c: number) {
      if (actsIn(c, TAG_NAME)) tagName.call(this, c);
      else skip(this, TAG_NAME);
    },
    stateInAttributeName(this: Position, c: number) {
      if (actsIn(c, ATTRIBUTE_NAME)) attributeName.call(this, c);
      else skip(this, ATTRIBUTE_NAME);
    },
    stateInClosingTagName(this: Position, c: number) {
      if (actsIn(c, CLOSING_TAG_NAME)) closingTagName.call(this, c);
      else skip(this, CLOSING_TAG_NAME);
    },
  };
};

if (FAST_STATES) {
  fast.fastForwardTo = forwardTo;
  Object.assign(fast, skippingStates());
}
