/**
 * The selectors of a page's own `<style>` rules that this reads: compounds of a tag (or `*`), classes, an id and
 * attribute tests (`[hidden]`, `[data-x="1"]`, `~=`, `|=`, `^=`, `$=`, `*=`), joined by descendant (space) and
 * child (`>`) combinators. Sibling combinators and pseudo-classes are not read (the selector is skipped).
 * Matching walks up the open elements and is charged to a budget per page (`MatchBudget`), so a hostile sheet
 * cannot make it cost more than a fixed amount however the rules and the nesting are built.
 */

/** What a selector is matched against: an open element. */
export interface ElementInfo {
  tag: string;
  id?: string;
  /** Lower-case. */
  classes: string[];
  attribs: Record<string, string>;
}

interface AttributeTest {
  name: string;
  op?: '=' | '~=' | '|=' | '^=' | '$=' | '*=';
  value?: string;
}

interface Compound {
  tag?: string;
  id?: string;
  classes: string[];
  attributes: AttributeTest[];
}

export interface Selector {
  /** The selector as written (lower-case, spaces collapsed): a rule that shows the same key again cancels a hiding. */
  key: string;
  /** Right to left: `compounds[0]` is the element itself. */
  compounds: Compound[];
  /** `combinators[i]` joins compounds[i] to compounds[i + 1] (its ancestor side). */
  combinators: Array<' ' | '>'>;
  /** (ids, classes and attributes, tags) as one number that orders like CSS specificity. */
  specificity: number;
  /** A class, id or tag each ancestor compound needs: a selector whose ancestors cannot all be open is not walked. */
  needs: Part[];
}

/** One thing an element is known by: `{kind: 'class', name: 'note'}`; `any` is the universal selector. */
export interface Part {
  kind: 'class' | 'id' | 'attr' | 'tag' | 'any';
  name: string;
}

/**
 * The open ancestors of the element being matched (outermost first), with a count of the classes, ids and tags among
 * them, so a selector whose ancestors are not all open is refused without walking (what browsers do with a filter).
 */
export interface Ancestry {
  list: readonly ElementInfo[];
  has(part: Part): boolean;
}

/** Compounds one selector may have: longer chains are unusual and only cost matching time. */
const MAX_COMPOUNDS = 8;
const MAX_SELECTOR_CHARS = 300;

const IDENT = '-?[a-z_][a-z0-9_-]*';
const COMPOUND = new RegExp(
  `^(\\*|${IDENT})?((?:[.#]${IDENT}|\\[\\s*${IDENT}\\s*(?:[~|^$*]?=\\s*(?:"[^"]*"|'[^']*'|[^\\]\\s"']+)\\s*(?:\\s[is])?\\s*)?\\])*)$`,
);
const PART = new RegExp(`[.#]${IDENT}|\\[[^\\]]*\\]`, 'g');
const ATTRIBUTE = new RegExp(`^\\[\\s*(${IDENT})\\s*(?:([~|^$*]?=)\\s*(?:"([^"]*)"|'([^']*)'|([^\\]\\s"']+))\\s*(?:\\s[is])?\\s*)?\\]$`);

const PLAIN = /^(?:\*|[a-z0-9_-]+)?(?:[.#]-?[a-z_][a-z0-9_-]*)*$/;

const parseCompound = (text: string): Compound | undefined => {
  if (!text) return undefined;
  // Most compounds are plain (`p`, `.a.b`, `div#k`): read without the full pattern.
  if (PLAIN.test(text)) {
    const pieces = text.split(/(?=[.#])/);
    const head = pieces[0] && !/^[.#]/.test(pieces[0]) ? pieces.shift()! : undefined;
    if (head !== undefined && !/^(?:\*|-?[a-z_][a-z0-9_-]*)$/.test(head)) return undefined;
    const compound: Compound = { tag: head && head !== '*' ? head : undefined, id: undefined, classes: [], attributes: [] };
    for (const p of pieces) {
      if (p.startsWith('.')) compound.classes.push(p.slice(1));
      else if (compound.id !== undefined && compound.id !== p.slice(1)) return undefined;
      else compound.id = p.slice(1);
    }
    return compound;
  }
  const m = COMPOUND.exec(text);
  if (!m) return undefined;
  const compound: Compound = { tag: m[1] && m[1] !== '*' ? m[1] : undefined, id: undefined, classes: [], attributes: [] };
  for (const p of m[2].match(PART) ?? []) {
    if (p.startsWith('.')) compound.classes.push(p.slice(1));
    else if (p.startsWith('#')) {
      if (compound.id !== undefined && compound.id !== p.slice(1)) return undefined;
      compound.id = p.slice(1);
    } else {
      const a = ATTRIBUTE.exec(p);
      if (!a) return undefined;
      compound.attributes.push({ name: a[1], op: a[2] as AttributeTest['op'], value: a[3] ?? a[4] ?? a[5] });
    }
  }
  return compound;
};

/** A selector split into its compounds and the combinators between them (outside attribute brackets). */
const splitSelector = (s: string): { pieces: string[]; joins: Array<' ' | '>'> } | undefined => {
  if (!s.includes('[')) {
    const parts = s.split(/([ >])/);
    const pieces = parts.filter((_, i) => i % 2 === 0);
    const joins = parts.filter((_, i) => i % 2 === 1) as Array<' ' | '>'>;
    return pieces.every(Boolean) ? { pieces, joins } : undefined;
  }
  const pieces: string[] = [];
  const joins: Array<' ' | '>'> = [];
  let depth = 0;
  let current = '';
  for (const ch of s) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (depth === 0 && (ch === ' ' || ch === '>')) {
      if (!current) return undefined;
      pieces.push(current);
      joins.push(ch);
      current = '';
      continue;
    }
    current += ch;
  }
  if (!current) return undefined;
  pieces.push(current);
  return { pieces, joins };
};

/** One selector of a rule's list, or undefined when it uses what this does not read. */
/**
 * What a compound is filed under, read from its text: its first class, else its id, else its first attribute's name,
 * else its tag, else `*`. Cheap, so a page's many rules are filed without being parsed; a rule is parsed the first
 * time an element it is filed for opens (most never are).
 */
const partOfCompound = (text: string): Part => {
  const bare = text.replace(/\[[^\]]*\]/g, '[]');
  const cls = /\.(-?[a-z_][a-z0-9_-]*)/.exec(bare);
  if (cls) return { kind: 'class', name: cls[1] };
  const id = /#(-?[a-z_][a-z0-9_-]*)/.exec(bare);
  if (id) return { kind: 'id', name: id[1] };
  const attr = /\[\s*(-?[a-z_][a-z0-9_-]*)/.exec(text);
  if (attr) return { kind: 'attr', name: attr[1] };
  const tag = /^[a-z][a-z0-9-]*/.exec(bare);
  return tag ? { kind: 'tag', name: tag[0] } : { kind: 'any', name: '*' };
};

/** The part a selector (as its key) is filed under: that of its last compound. */
export const selectorPart = (key: string): Part =>
  partOfCompound(key.includes(']') ? (key.split(/[ >](?![^[]*\])/).pop() ?? '') : key.slice(Math.max(key.lastIndexOf(' '), key.lastIndexOf('>')) + 1));

/** A selector as written, lower-case with its spaces collapsed: two rules name the same selector when their keys are equal. */
export const selectorKey = (selector: string): string => {
  const k = selector.trim().toLowerCase();
  // Most selectors are written with single spaces and no spaced `>`: those need no rewriting.
  return /\s[\s>]|>\s|[\t\n\r\f]/.test(k) ? k.replace(/\s*>\s*|\s+/g, (m) => (m.includes('>') ? '>' : ' ')) : k;
};

export const parseSelector = (selector: string): Selector | undefined => {
  const s = selectorKey(selector);
  if (!s || s.length > MAX_SELECTOR_CHARS || /[+~:,]|^>|>$/.test(s.includes('[') ? s.replace(/\[[^\]]*\]/g, '[]') : s)) return undefined;
  const split = splitSelector(s);
  if (!split || split.pieces.length > MAX_COMPOUNDS) return undefined;
  const { pieces, joins } = split;
  const compounds = pieces.map(parseCompound).reverse();
  if (compounds.some((c) => !c)) return undefined;
  const list = compounds as Compound[];
  let ids = 0;
  let classes = 0;
  let tags = 0;
  for (const c of list) {
    ids += c.id ? 1 : 0;
    classes += c.classes.length + c.attributes.length;
    tags += c.tag ? 1 : 0;
  }
  const partOf = (c: Compound): Part =>
    c.classes[0]
      ? { kind: 'class', name: c.classes[0] }
      : c.id
        ? { kind: 'id', name: c.id }
        : c.attributes[0]
          ? { kind: 'attr', name: c.attributes[0].name }
          : c.tag
            ? { kind: 'tag', name: c.tag }
            : { kind: 'any', name: '*' };
  const needs = list.slice(1).map(partOf).filter((p) => p.kind !== 'any' && p.kind !== 'attr');
  return { key: s, compounds: list, combinators: joins.reverse(), specificity: ids * 1e6 + classes * 1e3 + tags, needs };
};

const attributeHolds = (t: AttributeTest, attribs: Record<string, string>): boolean => {
  // Own attributes only: `[constructor]` must not find Object.prototype's and hide every element.
  const actual = Object.hasOwn(attribs, t.name) ? attribs[t.name] : undefined;
  if (actual === undefined) return false;
  if (!t.op || t.value === undefined) return true;
  const v = t.value;
  const a = actual.toLowerCase();
  switch (t.op) {
    case '=':
      return a === v;
    case '~=':
      return a.split(/\s+/).includes(v);
    case '|=':
      return a === v || a.startsWith(`${v}-`);
    case '^=':
      return v !== '' && a.startsWith(v);
    case '$=':
      return v !== '' && a.endsWith(v);
    case '*=':
      return v !== '' && a.includes(v);
  }
};

const compoundHolds = (c: Compound, el: ElementInfo): boolean => {
  if ((c.tag && c.tag !== el.tag) || (c.id && c.id !== el.id?.toLowerCase())) return false;
  for (const x of c.classes) if (!el.classes.includes(x)) return false;
  for (const t of c.attributes) if (!attributeHolds(t, el.attribs)) return false;
  return true;
};

/** Compound tests a page may spend on its selectors: past it, selectors with combinators no longer match. */
export const MATCH_BUDGET = 400_000;

export interface MatchBudget {
  left: number;
}

export const matchBudget = (units = MATCH_BUDGET): MatchBudget => ({ left: units });

/**
 * Whether `sel` selects `el`, whose open ancestors are `ancestry`'s (outermost first). A descendant step tries each
 * ancestor from the nearest, a child step the parent only; every compound test is charged to `budget`, and a
 * selector that needs ancestors once it is spent does not match (what is not read never hides text).
 */
export const matches = (sel: Selector, el: ElementInfo, ancestry: Ancestry, budget: MatchBudget): boolean => {
  if (!compoundHolds(sel.compounds[0], el)) return false;
  if (sel.compounds.length === 1) return true;
  for (const need of sel.needs) if (!ancestry.has(need)) return false;
  return budget.left > 0 && holdsAbove(sel, 0, ancestry.list.length, ancestry.list, budget);
};

/** compounds[i] held at ancestors[at] (at = ancestors.length: the element itself); whether the rest hold above it. */
const holdsAbove = (sel: Selector, i: number, at: number, ancestors: readonly ElementInfo[], budget: MatchBudget): boolean => {
  if (i + 1 >= sel.compounds.length) return true;
  const next = sel.compounds[i + 1];
  const child = sel.combinators[i] === '>';
  for (let j = at - 1; j >= 0; j--) {
    if (--budget.left < 0) return false;
    if (compoundHolds(next, ancestors[j]) && holdsAbove(sel, i + 1, j, ancestors, budget)) return true;
    if (child) return false;
  }
  return false;
};
