import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';

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
  const t = treeBuilder(html, handler, limits);
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
  const t = treeBuilder(html, handler, limits);
  for (let at = 0; at < html.length && !t.stopped(); at += SLICE_CHARS) {
    t.write(at, Math.min(html.length, at + SLICE_CHARS));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return t.finish();
};

const treeBuilder = (html: string, handler: TreeHandler, limits: TreeLimits) => {
  const stack: string[] = [];
  const open = new Map<string, number>();
  const report: TreeReport = { dropped: 0, work: 0 };
  // Dropped elements by name, so that their end tags are dropped too rather than closing a real ancestor.
  const droppedOpen = new Map<string, number>();
  let work = 0;
  let tagName = '';
  let attribs: Record<string, string> | null = null;
  let attribName = '';
  let attribValue = '';

  const push = (name: string) => {
    stack.push(name);
    open.set(name, (open.get(name) ?? 0) + 1);
  };
  const popOne = () => {
    const name = stack.pop()!;
    open.set(name, open.get(name)! - 1);
    work += TAG_COST;
    handler.onclosetag(name);
  };
  const charge = (units: number) => {
    work += units;
    if (work > limits.maxWork && report.cutAt === undefined) {
      report.cutAt = tokenizerIndex();
      tokenizer.pause();
    }
  };

  const openTag = (name: string) => {
    tagName = name;
    const closes = IMPLIES_CLOSE.get(name);
    if (closes) while (stack.length > 0 && closes.has(stack[stack.length - 1])) popOne();
    if (!VOID.has(name)) {
      if (stack.length >= limits.maxDepth) {
        report.dropped++;
        droppedOpen.set(name, (droppedOpen.get(name) ?? 0) + 1);
        attribs = null;
        charge(TAG_COST);
        return;
      }
      push(name);
    }
    attribs = {};
    charge(TAG_COST);
  };
  const endOpenTag = () => {
    if (attribs) handler.onopentag(tagName, attribs);
    attribs = null;
    if (VOID.has(tagName)) handler.onclosetag(tagName);
    tagName = '';
  };
  const closeTag = (name: string) => {
    const dropped = droppedOpen.get(name) ?? 0;
    if (dropped > 0) {
      droppedOpen.set(name, dropped - 1);
    } else if (!VOID.has(name)) {
      if ((open.get(name) ?? 0) > 0) {
        // Found below the top: every element above it closes too (each was pushed once, so this is amortised O(1)).
        let top: string;
        do {
          top = stack[stack.length - 1];
          popOne();
        } while (top !== name);
      } else if (name === 'p') {
        openTag('p');
        endOpenTag();
        if (stack[stack.length - 1] === 'p') popOne();
      }
    } else if (name === 'br') {
      handler.onopentag('br', {});
      handler.onclosetag('br');
    }
    charge(TAG_COST);
  };

  const slice = (start: number, end: number) => html.slice(start, end);
  const callbacks: TokenizerCallbacks = {
    ontext(start, end) {
      handler.ontext(slice(start, end));
      charge(end - start + 1);
    },
    ontextentity(cp) {
      handler.ontext(String.fromCodePoint(cp));
      charge(1);
    },
    onopentagname(start, end) {
      openTag(slice(start, end).toLowerCase());
    },
    onopentagend() {
      endOpenTag();
    },
    onselfclosingtag() {
      const name = tagName;
      const dropped = attribs === null && !VOID.has(name);
      endOpenTag();
      if (dropped) droppedOpen.set(name, droppedOpen.get(name)! - 1);
      if (stack[stack.length - 1] === name) popOne();
    },
    onclosetag(start, end) {
      closeTag(slice(start, end).toLowerCase());
    },
    onattribname(start, end) {
      attribName = slice(start, end).toLowerCase();
    },
    onattribdata(start, end) {
      attribValue += slice(start, end);
      charge(end - start);
    },
    onattribentity(cp) {
      attribValue += String.fromCodePoint(cp);
    },
    onattribend() {
      if (attribs && !Object.prototype.hasOwnProperty.call(attribs, attribName)) attribs[attribName] = attribValue;
      attribValue = '';
      charge(1);
    },
    oncdata(start, end) {
      charge(end - start);
    },
    oncomment(start, end) {
      charge(end - start);
    },
    ondeclaration() {},
    onprocessinginstruction() {},
    onend() {},
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  // The tokenizer keeps its position private; it is only read once, when the budget runs out.
  const tokenizerIndex = () => (tokenizer as unknown as { index: number }).index;
  return {
    /** Tokenizes html[from, to); indices in callbacks stay offsets into the whole page, so `slice` reads it directly. */
    write: (from: number, to: number) => {
      if (report.cutAt === undefined) tokenizer.write(html.slice(from, to));
    },
    stopped: () => report.cutAt !== undefined,
    finish: (): TreeReport => {
      if (report.cutAt === undefined) tokenizer.end();
      // Elements still open at the end (or at the cut) close innermost first, as htmlparser2 does.
      while (stack.length) {
        const name = stack.pop()!;
        handler.onclosetag(name);
      }
      report.work = work;
      return report;
    },
  };
};
