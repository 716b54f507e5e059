import { matches, parseSelector, selectorKey, selectorPart, type Ancestry, type ElementInfo, type MatchBudget, type Part, type Selector } from './css-selector';
import { declarations, hidesText, showsElement } from './hiding-style';

/**
 * The rules of a page's own `<style>` blocks that decide what a reader sees, the way a hostile page hides text
 * without an inline style: `<style>.x{display:none}</style> … <p class="x">`, `article > p[data-k] {opacity:0}`,
 * `.note{color:#fff}` on a white page. Selectors are read by css-selector.ts (compounds with classes, ids and
 * attributes, descendant and child combinators). A rule inside `@media`/`@supports` applies on some screens only, so
 * it never hides here, but a rule anywhere that displays the same selector again cancels the hiding
 * (`.menu{display:none}` + `@media(…){.menu{display:block}}`), and one that paints it again cancels its colours.
 * Colours, backgrounds and opacity cascade by specificity, then order (paint.ts inherits them down the page).
 * Bounded: the CSS read per page, the rules kept, the rules filed under one part and the matching work are capped,
 * so a style block costs linear time whatever it holds.
 */

const MAX_CSS_CHARS = 512 * 1024;
const MAX_RULES = 4_000;
/** More selectors than one page's CSS can hold (MAX_CSS_CHARS): the cascade's order fits under it. */
const MAX_ORDER = 1_000_000;
/** Rules filed under one class, id, attribute or tag: an element is checked against these only. */
const MAX_RULES_PER_PART = 32;
/** Attributes of one element looked up as parts (class, id and style need none of their own). */
const MAX_ATTRIBUTE_PARTS = 12;
const COMMENT = /\/\*[\s\S]*?(?:\*\/|$)/g;
const SPECIAL = /[{};]/g;
/** Declarations worth parsing for hiding or showing: any other rule neither hides nor shows an element. */
const MENTIONS_DISPLAY =
  /display|visib|opacity|font-size\s*:\s*(?:0|\.|[1-3](?:\.\d+)?px)|font\s*:[^;]*\b0|transparent|rgba|hsla|#[0-9a-f]{4}\b|#[0-9a-f]{8}|clip|indent|-\d{3}|scale|translate|matrix|(?:width|height)\s*:\s*[01](?:px)?\b/i;
/** Declarations worth parsing for paint. */
const MENTIONS_PAINT = /(?:^|[\s;])(?:color|background(?:-color|-image|-clip)?|-webkit-background-clip|opacity)\s*:/i;

interface Rule {
  /** The selector as written (lower-case): what a rule that shows or repaints the same selector names. */
  key: string;
  part: Part;
  /** Parsed the first time an element it is filed for opens; null when it uses what is not read. */
  selector?: Selector | null;
  order: number;
  hides: boolean;
  /** The colour, background and opacity declarations of the rule, when it has any. */
  paint?: Map<string, string>;
}

export interface SheetStyle {
  /** A rule read so far hides the element. */
  hides: boolean;
  /** The paint declarations the rules give it, each from the rule that wins the cascade. */
  paint?: Map<string, string>;
}

export interface HidingSheet {
  /** Reads more CSS (the text of a `<style>`, possibly in pieces). */
  read(css: string): void;
  /** What the rules read so far say of an element whose open ancestors are given (outermost first). */
  style(el: ElementInfo, ancestry: Ancestry, budget: MatchBudget): SheetStyle;
}

const NOTHING: SheetStyle = { hides: false, paint: undefined };
/** What stands for the paint of a rule inside an at-rule block, which is never filed. */
const NESTED_PAINT = new Map<string, string>();
/** Selectors with what is not read (sibling combinators, pseudo-classes, lists): skipped before they are filed. */
const UNREAD = /[+~:]/;
const parsed = (rule: Rule): Selector | null => (rule.selector === undefined ? (rule.selector = parseSelector(rule.key) ?? null) : rule.selector);
const HIDDEN: SheetStyle = { hides: true, paint: undefined };

const PAINT_DECLARATION = /(?:^|[;\s])(color|background(?:-color|-image|-clip)?|-webkit-background-clip|opacity)\s*:\s*([^;]*)/gi;

/**
 * The paint declarations of a rule's body, read with one pattern (most of a page's CSS is fonts and margins). An exec
 * loop rather than matchAll, which copies the pattern on every call; each match takes a property name, so the loop
 * always moves on.
 */
const paintDeclarations = (body: string): Map<string, string> | undefined => {
  let out: Map<string, string> | undefined;
  PAINT_DECLARATION.lastIndex = 0;
  for (let m = PAINT_DECLARATION.exec(body); m; m = PAINT_DECLARATION.exec(body)) {
    (out ??= new Map()).set(m[1].toLowerCase(), m[2].replace(/!\s*important/i, '').trim().toLowerCase());
  }
  return out;
};

/** The hiding rules and the paint rules filed under one part, each list capped apart. */
interface Filing {
  hiding?: Rule[];
  painting?: Rule[];
}
/** Rules filed by the kind and name of one part of their subject. */
type Filed = Record<Part['kind'], Map<string, Filing>>;

/**
 * The rules read so far, each filed under one part of its subject (its first class, else its id, else an attribute
 * name, else its tag), the selectors some rule displays again, which cancel the hiding, and the selectors a nested
 * rule paints, which cancel the colours of the others.
 */
const ruleIndex = () => {
  // Hiding rules and paint rules are capped apart, so a page's many colour rules never crowd out a hiding one.
  const index: Filed = { class: new Map(), id: new Map(), attr: new Map(), tag: new Map(), any: new Map() };
  const filedAny = { hiding: false, painting: false };
  const shown = new Set<string>();
  const repainted = new Set<string>();
  const counts = { hiding: 0, painting: 0, order: 0 };
  const file = (kind: keyof Filing, rule: Rule) => {
    const byName = index[rule.part.kind];
    let filing = byName.get(rule.part.name);
    const list = filing?.[kind] ?? [];
    if (list.length >= MAX_RULES_PER_PART) return;
    list.push(rule);
    if (!filing) byName.set(rule.part.name, (filing = { hiding: undefined, painting: undefined }));
    filing[kind] = list;
    filedAny[kind] = true;
  };
  // The candidate lists of the element being styled: the first `found.hiding` and `found.painting` entries (kept
  // between elements, since emptying an array costs more than counting).
  const hidingLists: Rule[][] = [];
  const paintingLists: Rule[][] = [];
  const found = { hiding: 0, painting: 0 };
  const take = (filing: Filing | undefined) => {
    if (!filing) return;
    if (filing.hiding) hidingLists[found.hiding++] = filing.hiding;
    if (filing.painting) paintingLists[found.painting++] = filing.painting;
  };
  /** The rules filed under the element's parts (its classes, id, attributes, tag, and `*`), into the two lists. */
  const candidates = (el: ElementInfo) => {
    found.hiding = 0;
    found.painting = 0;
    if (index.class.size) for (const c of el.classes) take(index.class.get(c));
    if (el.id && index.id.size) take(index.id.get(el.id.toLowerCase()));
    if (index.attr.size) {
      let attributes = 0;
      for (const name in el.attribs) if (attributes++ < MAX_ATTRIBUTE_PARTS) take(index.attr.get(name));
    }
    take(index.tag.get(el.tag));
    take(index.any.get('*'));
  };
  return {
    /** One `prelude { body }`; `nested` when it sits inside an at-rule block. */
    add(prelude: string, body: string, nested: boolean) {
      const p = prelude.trim();
      if (!p || p.startsWith('@')) return;
      const forDisplay = MENTIONS_DISPLAY.test(body);
      const forPaint = MENTIONS_PAINT.test(body);
      if (!forDisplay && !forPaint) return;
      const d = forDisplay ? declarations(body) : undefined;
      const hides = !!d && !nested && hidesText(d);
      const shows = !!d && showsElement(d);
      // A nested rule's paint only cancels others' (a declaration is there exactly when forPaint is true).
      const paint = forPaint ? (nested ? NESTED_PAINT : paintDeclarations(body)) : undefined;
      if (!hides && !shows && !paint) return;
      for (const text of p.split(',')) {
        const key = selectorKey(text);
        if (!key || UNREAD.test(key.includes('[') ? key.replace(/\[[^\]]*\]/g, '[]') : key)) continue;
        const order = ++counts.order;
        if (shows) shown.add(key);
        if (paint && nested) repainted.add(key);
        if (nested) continue;
        const part = selectorPart(key);
        if (hides && counts.hiding < MAX_RULES) (counts.hiding++, file('hiding', { key, part, selector: undefined, order, hides: true, paint: undefined }));
        if (paint && counts.painting < MAX_RULES) (counts.painting++, file('painting', { key, part, selector: undefined, order, hides: false, paint }));
      }
    },
    style(el: ElementInfo, ancestors: Ancestry, budget: MatchBudget): SheetStyle {
      if (!filedAny.hiding && !filedAny.painting) return NOTHING;
      candidates(el);
      if (filedAny.hiding) {
        for (let i = 0; i < found.hiding; i++) {
          for (const rule of hidingLists[i]) {
            const selector = parsed(rule);
            if (selector && !shown.has(rule.key) && matches(selector, el, ancestors, budget)) return HIDDEN;
          }
        }
      }
      if (!filedAny.painting) return NOTHING;
      let won: Map<string, string> | undefined;
      let ranks: Map<string, number> | undefined;
      for (let i = 0; i < found.painting; i++) {
        for (const rule of paintingLists[i]) {
          const selector = repainted.size && repainted.has(rule.key) ? null : parsed(rule);
          if (!selector || !matches(selector, el, ancestors, budget)) continue;
          const rank = selector.specificity * MAX_ORDER + rule.order;
          won ??= new Map();
          ranks ??= new Map();
          for (const [k, value] of rule.paint!) {
            if ((ranks.get(k) ?? -1) >= rank) continue;
            won.set(k, value);
            ranks.set(k, rank);
          }
        }
      }
      return won ? { hides: false, paint: won } : NOTHING;
    },
  };
};

/**
 * A small scanner over CSS (comments blanked first): `prelude { body }` at any depth, a rule inside an at-rule block
 * marked nested; returns the block depth it ends at, where the next piece goes on. It jumps from one `{`, `}` or `;`
 * to the next, and looks each following `{` and `}` up once per position it stands at, so the scan stays linear
 * whatever the nesting.
 */
const scanRules = (raw: string, depthBefore: number, onRule: (prelude: string, body: string, nested: boolean) => void): number => {
  const css = raw.replace(COMMENT, ' ');
  let depth = depthBefore;
  let at = 0;
  let nextOpen = -1;
  let nextClose = -1;
  const after = (i: number, ch: string, cached: number) => (cached > i ? cached : css.indexOf(ch, i + 1) >>> 0);
  SPECIAL.lastIndex = 0;
  for (let m = SPECIAL.exec(css); m; m = SPECIAL.exec(css)) {
    const i = m.index;
    const prelude = css.slice(at, i).trim();
    at = i + 1;
    if (m[0] !== '{') {
      if (m[0] === '}' && depth > 0) depth--;
      continue;
    }
    nextOpen = after(i, '{', nextOpen);
    nextClose = after(i, '}', nextClose);
    // A plain rule: its body ends before any other block opens.
    if (!prelude.startsWith('@') && nextClose < css.length && nextClose < nextOpen) {
      onRule(prelude, css.slice(i + 1, nextClose), depth > 0);
      at = nextClose + 1;
      SPECIAL.lastIndex = at;
    } else depth++;
  }
  return depth;
};

export const hidingSheet = (): HidingSheet => {
  const index = ruleIndex();
  let pending = '';
  let read = 0;
  let depth = 0;
  return {
    read(css) {
      if (read >= MAX_CSS_CHARS) return;
      const piece = css.slice(0, MAX_CSS_CHARS - read);
      read += piece.length;
      // Rules cut between two pieces of text are completed when the rest arrives.
      const text = pending + piece;
      const lastClose = text.lastIndexOf('}');
      pending = lastClose >= 0 ? text.slice(lastClose + 1) : text;
      if (lastClose >= 0) depth = scanRules(text.slice(0, lastClose + 1), depth, index.add);
      if (pending.length > 64 * 1024) pending = '';
    },
    style: index.style,
  };
};
