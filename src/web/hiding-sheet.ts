import { declarations, hidesText, showsElement } from './hiding-style';

/**
 * The hiding rules of a page's own `<style>` blocks, the way a hostile page hides text without an inline style:
 * `<style>.x{display:none}</style> … <p class="x">`. Only simple selectors are read (`.a`, `.a.b`, `#id`, `p.a`,
 * `span`); a rule inside `@media`/`@supports` hides only on some screens, so it never hides here, but a rule anywhere
 * that displays the same selector again cancels the hiding (`.menu{display:none}` + `@media(…){.menu{display:block}}`).
 * Bounded: the CSS read per page and the rules kept are capped, so a style block costs linear time whatever it holds.
 */

const MAX_CSS_CHARS = 512 * 1024;
const MAX_RULES = 4_000;
/** Rules filed under one class, id or tag: an element is checked against these only. */
const MAX_RULES_PER_PART = 32;
const COMMENT = /\/\*[\s\S]*?(?:\*\/|$)/g;
const SPECIAL = /[{};]/g;
/** Declarations worth parsing: any other rule neither hides nor shows an element. */
const MENTIONS_DISPLAY = /display|visib|opacity|font-size\s*:\s*(?:0|\.|[1-3](?:\.\d+)?px)|font\s*:[^;]*\b0|transparent|rgba|hsla|#[0-9a-f]{4}\b|#[0-9a-f]{8}|clip|indent|-\d{3}|scale|(?:width|height)\s*:\s*[01](?:px)?\b/i;
const SIMPLE = /^([a-z][a-z0-9-]*)?((?:[.#][a-z0-9_-]+)*)$/;

interface Rule {
  tag?: string;
  id?: string;
  classes: string[];
}

export interface HidingSheet {
  /** Reads more CSS (the text of a `<style>`, possibly in pieces). */
  read(css: string): void;
  /** Whether a rule read so far hides an element with this tag, classes (lower-case) and id. */
  hides(tag: string, classes: string[], id: string | undefined): boolean;
}

const parseSelector = (selector: string): (Rule & { key: string }) | undefined => {
  const s = selector.trim().toLowerCase();
  const m = SIMPLE.exec(s);
  if (!m || !s) return undefined;
  const parts = m[2].match(/[.#][a-z0-9_-]+/g) ?? [];
  const ids = parts.filter((p) => p.startsWith('#')).map((p) => p.slice(1));
  if (ids.length > 1) return undefined;
  return { key: s, tag: m[1], id: ids[0], classes: parts.filter((p) => p.startsWith('.')).map((p) => p.slice(1)) };
};

/**
 * The hiding rules read so far, each filed under one of its parts (its first class, else its id, else its tag), and
 * the selectors some rule displays again, which cancel the hiding.
 */
const ruleIndex = () => {
  const byPart = new Map<string, Array<Rule & { key: string }>>();
  const shown = new Set<string>();
  let rules = 0;
  return {
    /** One `prelude { body }`; `nested` when it sits inside an at-rule block. */
    add(prelude: string, body: string, nested: boolean) {
      const p = prelude.trim();
      if (!p || p.startsWith('@') || rules >= MAX_RULES || !MENTIONS_DISPLAY.test(body)) return;
      const d = declarations(body);
      const hides = !nested && hidesText(d);
      const shows = showsElement(d);
      if (!hides && !shows) return;
      for (const selector of p.split(',')) {
        const rule = parseSelector(selector);
        if (!rule) continue;
        rules++;
        if (shows) shown.add(rule.key);
        if (!hides) continue;
        const part = rule.classes[0] ? `.${rule.classes[0]}` : rule.id ? `#${rule.id}` : rule.tag!;
        const list = byPart.get(part) ?? [];
        if (list.length >= MAX_RULES_PER_PART) continue;
        list.push(rule);
        byPart.set(part, list);
      }
    },
    hides(tag: string, classes: string[], id: string | undefined): boolean {
      if (byPart.size === 0) return false;
      const candidates = [...classes.map((c) => `.${c}`), ...(id ? [`#${id.toLowerCase()}`] : []), tag];
      for (const part of candidates) {
        for (const rule of byPart.get(part) ?? []) {
          if (shown.has(rule.key)) continue;
          if (rule.tag && rule.tag !== tag) continue;
          if (rule.id && rule.id !== id?.toLowerCase()) continue;
          if (rule.classes.every((c) => classes.includes(c))) return true;
        }
      }
      return false;
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
    hides: index.hides,
  };
};
