import { hidingSheet, type HidingSheet } from './hiding-sheet';
import { hiddenByStyle } from './hiding-style';

/**
 * What a reader of the page does not see: elements a browser does not render, or renders so that no text shows.
 * Decided per element as it opens, from its tag, its attributes and the simple rules of the page's own `<style>`
 * blocks read so far (hiding-sheet.ts); the whole subtree goes with it. Both what the model is given (extract.ts)
 * and what verifies an answer (rendered-text.ts) leave it out, so hidden text can neither steer nor back an answer.
 *
 * Counted as seen, on purpose:
 * - `aria-hidden="true"`: it hides text from assistive technology only; a sighted reader sees it (the page extraction
 *   still drops it as decoration, but it verifies like any visible text);
 * - `hidden="until-found"` and a closed `<details>`: collapsed, but the reader opens them (or the browser's find
 *   does); Wikipedia's mobile sections are collapsed this way;
 * - SVG `<text>`: chart labels are drawn.
 * Not evaluated: external stylesheets, selectors with combinators or pseudo-classes, and the cascade (a rule that
 * shows an element again wins only when it names the same selector somewhere in the page's `<style>`).
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

const classHides = (classes: string[]): boolean =>
  classes.some((c) => HIDING_CLASSES.has(c)) && !classes.some((c) => SHOWN_ON_SOME_SCREENS.test(c));

/** Why an element (and everything in it) is not seen, given the page's rules so far; undefined when it is. */
export const hiddenReason = (name: string, attribs: Record<string, string>, sheet?: HidingSheet): HiddenReason | undefined => {
  if (NOT_RENDERED_TAGS.has(name)) return 'tag';
  if (name === 'dialog' && !('open' in attribs)) return 'tag';
  if ('hidden' in attribs && attribs.hidden.trim().toLowerCase() !== 'until-found') return 'attribute';
  if (attribs.style && hiddenByStyle(attribs.style)) return 'style';
  const classes = attribs.class ? attribs.class.toLowerCase().split(/\s+/).filter(Boolean).slice(0, MAX_CLASSES) : [];
  if (classes.length && classHides(classes)) return 'class';
  if (sheet?.hides(name, classes, attribs.id)) return 'stylesheet';
  return undefined;
};

/** Why a subtree is left out (an extraction adds its own reasons to `hiddenReason`'s), or undefined to keep it. */
export type SkipRule = (name: string, attribs: Record<string, string>, sheet: HidingSheet) => string | undefined;

/**
 * Tracks the subtrees left out while a page is read element by element: `open` says whether the element is inside
 * one (its own rule or an ancestor's), `close` ends it, and `text` counts what was left out by the reason of the
 * outermost skipped element. The text of every `<style>` feeds the page's rules, since a `<style>` applies wherever
 * it stands, skipped or not. Opens and closes must pair up, as the tree builder's do.
 */
export const skippedSubtrees = (rule: SkipRule = hiddenReason) => {
  const sheet = hidingSheet();
  let depth = 0;
  let reason: string | undefined;
  let inStyle = false;
  const dropped = new Map<string, number>();
  return {
    /** The element opens; true when it is left out. */
    open(name: string, attribs: Record<string, string>): boolean {
      if (name === 'style') inStyle = true;
      if (depth > 0) depth++;
      else if ((reason = rule(name, attribs, sheet))) depth = 1;
      return depth > 0;
    },
    /** Text at this point; true when it is left out. */
    text(text: string): boolean {
      if (inStyle) sheet.read(text);
      if (depth === 0) return false;
      dropped.set(reason!, (dropped.get(reason!) ?? 0) + text.length);
      return true;
    },
    /** The innermost open element closes. */
    close(name: string) {
      if (name === 'style') inStyle = false;
      if (depth > 0) depth--;
    },
    skipping: () => depth > 0,
    /** Characters of text left out for this reason so far. */
    dropped: (why: string) => dropped.get(why) ?? 0,
  };
};
