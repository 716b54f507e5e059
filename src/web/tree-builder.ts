import type { Tokenizer, TokenizerCallbacks } from 'htmlparser2';
import { FastTokenizer } from './fast-tokenizer';

/**
 * Element events for a page, built on htmlparser2's tokenizer with htmlparser2's own HTML rules (implied end
 * tags, void elements, `</p>` without an opening tag), but bounded for hostile input:
 * - the open-element stack is a push/pop array plus a count per tag name, so opening is O(1) and an end tag
 *   that matches nothing is O(1) (htmlparser2's Parser unshifts onto and scans its whole stack: quadratic
 *   on `<div>`×800,000 or on misnested end tags under a deep stack);
 * - nesting is capped: an element that would open deeper than `maxDepth` is dropped (its text stays, in
 *   the innermost open element) and so is its end tag;
 * - a work budget (characters read plus a fixed cost per tag event) stops the page where it runs out.
 */

export interface TreeHandler {
  /**
   * Whether the handler is inside a subtree it leaves out, so the next element's attributes will not be read: they are
   * then skipped (still charged to the work budget) and the element gets an empty, frozen set.
   */
  skipping?(): boolean;
  onopentag(name: string, attribs: Record<string, string>): void;
  ontext(text: string): void;
  onclosetag(name: string): void;
}

export interface TreeLimits {
  /** Elements that would open deeper than this are dropped; their text stays. */
  maxDepth: number;
  /** Work units for the page: one per character of text and attribute, `TAG_COST` per tag event. */
  maxWork: number;
}

export interface TreeReport {
  /** Elements dropped at the depth cap. */
  dropped: number;
  /** Work units spent. */
  work: number;
  /** Characters of input read before the work budget ran out; undefined when the whole page was read. */
  cutAt?: number;
}

/** The attributes of an element inside a subtree the handler leaves out (TreeHandler.skipping): never read. */
const UNREAD_ATTRIBUTES: Record<string, string> = Object.freeze({});

/** A tag event costs about as much as this many characters of text (callbacks, frames, sets). */
export const TAG_COST = 8;

const VOID = new Set([
  'area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen',
  'link', 'meta', 'param', 'source', 'track', 'wbr',
]);

// The same implied-end-tag table as htmlparser2's Parser: opening the key closes a matching innermost element.
const P = new Set(['p']);
const FORM = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const CELL_OR_ROW = new Set(['tr', 'th', 'td']);
const DD_DT = new Set(['dd', 'dt']);
const RT_RP = new Set(['rt', 'rp']);
const SECTION = new Set(['thead', 'tbody']);
const IMPLIES_CLOSE = new Map<string, Set<string>>([
  ['tr', CELL_OR_ROW], ['th', new Set(['th'])], ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])], ['li', new Set(['li'])],
  ['select', FORM], ['input', FORM], ['output', FORM], ['button', FORM], ['datalist', FORM], ['textarea', FORM],
  ['option', new Set(['option'])], ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', DD_DT], ['dt', DD_DT], ['rt', RT_RP], ['rp', RT_RP], ['tbody', SECTION], ['tfoot', SECTION],
  ...['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl',
    'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section',
    'table', 'ul'].map((t): [string, Set<string>] => [t, P]),
]);

/**
 * Parses `html` in one pass and reports element events to `handler`.
 * @example buildTree('<p>a<p>b', h, { maxDepth: 256, maxWork: 1e7 }) // open p, text a, close p, open p, text b, close p
 */
export const buildTree = (html: string, handler: TreeHandler, limits: TreeLimits): TreeReport => {
  const t = new TreeBuilder(html, handler, limits);
  t.write(0, html.length);
  return t.finish();
};

/** Characters tokenized between two hand-backs of the event loop in `buildTreeAsync`. */
export const SLICE_CHARS = 128 * 1024;

/**
 * `buildTree` that yields to the event loop after every `SLICE_CHARS` of input: a 4 MB page is seconds of
 * synchronous work, and the isolate serves nothing else (not even /healthz) while it runs.
 */
export const buildTreeAsync = async (html: string, handler: TreeHandler, limits: TreeLimits): Promise<TreeReport> => {
  const t = new TreeBuilder(html, handler, limits);
  for (let at = 0; at < html.length && !t.stopped(); at += SLICE_CHARS) {
    t.write(at, Math.min(html.length, at + SLICE_CHARS));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return t.finish();
};

/**
 * The open elements: a push/pop stack with a count per name (so an end tag that matches nothing is O(1)), and the
 * elements dropped at the depth cap by name, so their end tags are dropped too rather than closing a real ancestor.
 */
class OpenElements {
  readonly stack: string[] = [];
  private readonly open = new Map<string, number>();
  private readonly dropped = new Map<string, number>();

  top(): string | undefined {
    return this.stack[this.stack.length - 1];
  }
  push(name: string) {
    this.stack.push(name);
    this.open.set(name, (this.open.get(name) ?? 0) + 1);
  }
  pop(): string {
    const name = this.stack.pop()!;
    this.open.set(name, this.open.get(name)! - 1);
    return name;
  }
  isOpen(name: string): boolean {
    return (this.open.get(name) ?? 0) > 0;
  }
  drop(name: string) {
    this.dropped.set(name, (this.dropped.get(name) ?? 0) + 1);
  }
  /** Takes back one dropped element of this name, if any is waiting for its end tag. */
  undrop(name: string): boolean {
    if (this.dropped.size === 0) return false;
    const n = this.dropped.get(name) ?? 0;
    if (n > 0) this.dropped.set(name, n - 1);
    return n > 0;
  }
}

/**
 * The tokenizer's callbacks: tag events turned into element events under the implied-end-tag rules, the depth cap
 * and the work budget. Indices in callbacks are offsets into the whole page, so text is sliced from `html` directly.
 */
class TreeBuilder implements TokenizerCallbacks {
  readonly report: TreeReport = { dropped: 0, work: 0 };
  private readonly elements = new OpenElements();
  private readonly tokenizer: Tokenizer;
  private work = 0;
  private tagName = '';
  private tagIsVoid = false;
  private attribs: Record<string, string> | null = null;
  /** The current tag's attributes are kept (not inside a subtree the handler leaves out). */
  private keepAttribs = true;
  private attribName = '';
  private attribValue = '';

  constructor(
    private readonly html: string,
    private readonly handler: TreeHandler,
    private readonly limits: TreeLimits,
  ) {
    this.tokenizer = new FastTokenizer({ decodeEntities: true }, this);
  }

  /** Tokenizes html[from, to). */
  write(from: number, to: number) {
    if (this.report.cutAt === undefined) this.tokenizer.write(this.html.slice(from, to));
  }
  stopped() {
    return this.report.cutAt !== undefined;
  }
  finish(): TreeReport {
    if (this.report.cutAt === undefined) this.tokenizer.end();
    // Elements still open at the end (or at the cut) close innermost first, as htmlparser2 does.
    const { stack } = this.elements;
    while (stack.length) this.handler.onclosetag(stack.pop()!);
    this.report.work = this.work;
    return this.report;
  }

  private charge(units: number) {
    this.work += units;
    if (this.work > this.limits.maxWork && this.report.cutAt === undefined) {
      // The tokenizer keeps its position private; it is only read once, when the budget runs out.
      this.report.cutAt = (this.tokenizer as unknown as { index: number }).index;
      this.tokenizer.pause();
    }
  }
  private popOne() {
    const name = this.elements.pop();
    this.work += TAG_COST;
    this.handler.onclosetag(name);
  }
  private openTag(name: string) {
    this.tagName = name;
    this.tagIsVoid = VOID.has(name);
    const closes = IMPLIES_CLOSE.get(name);
    if (closes) while (this.elements.stack.length > 0 && closes.has(this.elements.top()!)) this.popOne();
    if (!this.tagIsVoid) {
      if (this.elements.stack.length >= this.limits.maxDepth) {
        this.report.dropped++;
        this.elements.drop(name);
        this.attribs = null;
        this.charge(TAG_COST);
        return;
      }
      this.elements.push(name);
    }
    // Asked after the implied closes above, which may end the subtree being left out.
    this.keepAttribs = this.handler.skipping?.() !== true;
    this.attribs = this.keepAttribs ? {} : UNREAD_ATTRIBUTES;
    this.charge(TAG_COST);
  }
  private endOpenTag() {
    if (this.attribs) this.handler.onopentag(this.tagName, this.attribs);
    this.attribs = null;
    if (this.tagIsVoid) this.handler.onclosetag(this.tagName);
    this.tagName = '';
    this.tagIsVoid = false;
  }
  private closeTag(name: string) {
    if (this.elements.undrop(name)) {
      // The end tag of a dropped element: dropped too.
    } else if (this.elements.top() === name) {
      this.popOne();
    } else if (!VOID.has(name)) {
      if (this.elements.isOpen(name)) {
        // Found below the top: every element above it closes too (each was pushed once, so this is amortised O(1)).
        let top: string;
        do {
          top = this.elements.top()!;
          this.popOne();
        } while (top !== name);
      } else if (name === 'p') {
        this.openTag('p');
        this.endOpenTag();
        if (this.elements.top() === 'p') this.popOne();
      }
    } else if (name === 'br') {
      this.handler.onopentag('br', {});
      this.handler.onclosetag('br');
    }
    this.charge(TAG_COST);
  }

  ontext(start: number, end: number) {
    this.handler.ontext(this.html.slice(start, end));
    this.charge(end - start + 1);
  }
  ontextentity(cp: number) {
    this.handler.ontext(String.fromCodePoint(cp));
    this.charge(1);
  }
  onopentagname(start: number, end: number) {
    this.openTag(this.html.slice(start, end).toLowerCase());
  }
  onopentagend() {
    this.endOpenTag();
  }
  onselfclosingtag() {
    const name = this.tagName;
    const dropped = this.attribs === null && !VOID.has(name);
    this.endOpenTag();
    if (dropped) this.elements.undrop(name);
    if (this.elements.top() === name) this.popOne();
  }
  onclosetag(start: number, end: number) {
    this.closeTag(this.html.slice(start, end).toLowerCase());
  }
  onattribname(start: number, end: number) {
    if (this.keepAttribs) this.attribName = this.html.slice(start, end).toLowerCase();
  }
  onattribdata(start: number, end: number) {
    if (this.keepAttribs) this.attribValue += this.html.slice(start, end);
    this.charge(end - start);
  }
  onattribentity(cp: number) {
    if (this.keepAttribs) this.attribValue += String.fromCodePoint(cp);
  }
  onattribend() {
    const { attribs } = this;
    if (attribs && this.keepAttribs && !Object.prototype.hasOwnProperty.call(attribs, this.attribName)) attribs[this.attribName] = this.attribValue;
    this.attribValue = '';
    this.charge(1);
  }
  oncdata(start: number, end: number) {
    this.charge(end - start);
  }
  oncomment(start: number, end: number) {
    this.charge(end - start);
  }
  ondeclaration() {}
  onprocessinginstruction() {}
  onend() {}
}
