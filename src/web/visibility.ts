import { ancestry } from './ancestry';
import { matchBudget, type ElementInfo } from './css-selector';
import { hidingSheet } from './hiding-sheet';
import { hiddenByStyle, MIN_OPACITY, pixels } from './hiding-style';
import { PAGE_PAINT, paintOf, type Paint } from './paint';

/**
 * What a reader of the page does not see: elements a browser does not render, or renders so that no text shows.
 * Decided per element as it opens, from its tag, its attributes, the rules of the page's own `<style>` blocks read
 * so far (hiding-sheet.ts) and what it inherits (paint.ts); the whole subtree goes with it. Text in the colour of its
 * background is judged where it stands, since a child may paint itself readable again. The one rendering of a page
 * (rendered-text.ts: what the model is given and what verifies an answer) leaves it out, so hidden text can neither
 * steer nor back an answer.
 *
 * Counted as seen, on purpose:
 * - `aria-hidden="true"`: it hides text from assistive technology only; a sighted reader sees it;
 * - `hidden="until-found"` and a closed `<details>`: collapsed, but the reader opens them (or the browser's find
 *   does); Wikipedia's mobile sections are collapsed this way;
 * - coloured text on a coloured background, and text over a background image or gradient (it cannot be judged).
 * Not evaluated: external stylesheets, sibling combinators and pseudo-classes, `!important`, and the cascade of
 * hiding rules (a rule that shows an element again wins only when it names the same selector somewhere in the page's
 * `<style>`).
 */

/** Their content is never drawn: code, markup for later, fallbacks for features every browser has, metadata. */
export const NOT_RENDERED_TAGS = new Set([
  'script', 'style', 'template', 'noscript', 'head', 'iframe', 'object', 'canvas', 'video', 'audio', 'datalist', 'noembed', 'noframes',
]);

/** Class names that page frameworks (Bootstrap, Tailwind, WordPress, Drupal) define as not drawn. */
const HIDING_CLASSES = new Set([
  'sr-only', 'visually-hidden', 'visuallyhidden', 'screen-reader-text', 'screen-reader-only', 'element-invisible', 'hidden-visually',
  'a11y-hidden', 'd-none', 'hidden', 'hide', 'invisible', 'is-hidden',
]);
/** `hidden md:block`, `d-none d-lg-block`: hidden on some screens only, so seen by some readers. */
const SHOWN_ON_SOME_SCREENS = /^(?:[a-z0-9]+:(?:block|inline|inline-block|flex|inline-flex|grid|inline-grid|table|contents|list-item|visible)|d-[a-z]+-(?!none)[a-z-]+|visible-[a-z-]+)$/;
const MAX_CLASSES = 32;

export type HiddenReason = 'tag' | 'attribute' | 'style' | 'class' | 'stylesheet';

/** Elements that draw a box of their own size: at zero width or height nothing in them shows. */
const EMBEDDED = new Set(['svg', 'object', 'embed', 'iframe', 'img', 'canvas', 'video', 'picture']);

const zeroLength = (value: string | undefined): boolean =>
  value !== undefined && pixels(/^\s*[\d.]+\s*$/.test(value) ? `${value.trim()}px` : value.trim().toLowerCase()) === 0;
const zeroSized = (attribs: Record<string, string>): boolean => zeroLength(attribs.width) || zeroLength(attribs.height);

const classHides = (classes: string[]): boolean =>
  classes.some((c) => HIDING_CLASSES.has(c)) && !classes.some((c) => SHOWN_ON_SOME_SCREENS.test(c));

const NO_CLASSES: string[] = [];
const classesOf = (attribs: Record<string, string>): string[] =>
  attribs.class ? attribs.class.toLowerCase().split(/\s+/).filter(Boolean).slice(0, MAX_CLASSES) : NO_CLASSES;

/** Distinct class attributes remembered per page: a page repeats a few (3,425 on the 25 CRAG pages, for 16,481). */
const MAX_CACHED_CLASS_LISTS = 4096;

/** `classesOf`, each distinct value split once per page; the lists are shared, so read-only. */
const classLists = () => {
  const lists = new Map<string, string[]>();
  return (attribs: Record<string, string>): string[] => {
    const value = attribs.class;
    if (!value) return NO_CLASSES;
    let classes = lists.get(value);
    if (!classes) {
      classes = classesOf(attribs);
      if (lists.size < MAX_CACHED_CLASS_LISTS) lists.set(value, classes);
    }
    return classes;
  };
};

/**
 * Why an element (and everything in it) is not seen; undefined when it is. `byStylesheet`: a rule of the page's own
 * `<style>` hides it (hiding-sheet.ts).
 */
export const hiddenReason = (name: string, attribs: Record<string, string>, byStylesheet = false, classes = classesOf(attribs)): HiddenReason | undefined => {
  if (NOT_RENDERED_TAGS.has(name)) return 'tag';
  if (name === 'dialog' && !('open' in attribs)) return 'tag';
  // Attribute values are strings, so a named read tells presence (cheaper than `in` on a page's many shapes).
  const hidden = attribs.hidden;
  if (hidden !== undefined && hidden.trim().toLowerCase() !== 'until-found') return 'attribute';
  if (EMBEDDED.has(name) && zeroSized(attribs)) return 'attribute';
  if (attribs.style && hiddenByStyle(attribs.style)) return 'style';
  if (classes.length && classHides(classes)) return 'class';
  if (byStylesheet) return 'stylesheet';
  return undefined;
};

/** Why a subtree is left out (an extraction adds its own reasons to `hiddenReason`'s), or undefined to keep it. */
export type SkipRule = (name: string, attribs: Record<string, string>, byStylesheet: boolean, classes: string[]) => string | undefined;

/**
 * Tracks the subtrees left out while a page is read element by element: `open` says whether the element is inside
 * one (its own rule or an ancestor's), `close` ends it, and `text` says whether text at this point is left out
 * (in a skipped subtree, or painted in its background's colour), counting it by the reason of the outermost skipped
 * element (`colour` for the second). The open elements that are seen are kept as a stack with their paint, for the
 * page's selectors and for what each element inherits. The text of every `<style>` feeds the page's rules, since a
 * `<style>` applies wherever it stands, skipped or not. Opens and closes must pair up, as the tree builder's do.
 */
export const skippedSubtrees = (rule: SkipRule = hiddenReason) => {
  const sheet = hidingSheet();
  const budget = matchBudget();
  const ancestors = ancestry();
  const paints: Paint[] = [PAGE_PAINT];
  const classesOfElement = classLists();
  let depth = 0;
  let reason: string | undefined;
  let inStyle = false;
  const dropped = new Map<string, number>();
  const drop = (why: string, n: number) => dropped.set(why, (dropped.get(why) ?? 0) + n);
  return {
    /** The element opens; true when it is left out. */
    open(name: string, attribs: Record<string, string>): boolean {
      if (name === 'style') inStyle = true;
      if (depth > 0) {
        depth++;
        return true;
      }
      const el: ElementInfo = { tag: name, id: attribs.id, classes: classesOfElement(attribs), attribs };
      const fromSheet = sheet.style(el, ancestors, budget);
      reason = rule(name, attribs, fromSheet.hides, el.classes);
      const paint = reason ? undefined : paintOf(paints[paints.length - 1], name, attribs, fromSheet.paint);
      if (paint && paint.opacity < MIN_OPACITY) reason = fromSheet.paint?.has('opacity') ? 'stylesheet' : 'style';
      if (reason || !paint) {
        depth = 1;
        return true;
      }
      ancestors.push(el);
      paints.push(paint);
      return false;
    },
    /** Text at this point; true when it is left out. */
    text(text: string): boolean {
      if (inStyle) sheet.read(text);
      if (depth === 0) {
        if (!paints[paints.length - 1].blends || !text.trim()) return false;
        drop('colour', text.length);
        return true;
      }
      drop(reason!, text.length);
      return true;
    },
    /** The innermost open element closes. */
    close(name: string) {
      if (name === 'style') inStyle = false;
      if (depth > 0) depth--;
      else if (paints.length > 1) {
        ancestors.pop();
        paints.pop();
      }
    },
    skipping: () => depth > 0,
    /** Characters of text left out for this reason so far. */
    dropped: (why: string) => dropped.get(why) ?? 0,
  };
};
