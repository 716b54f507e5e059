import { parseColour } from './css-colour';

/**
 * CSS declarations (an inline `style`, or the body of a `<style>` rule) that leave an element's text unseen: not
 * displayed, invisible, transparent or nearly so, too small to read, clipped to nothing or moved off the page.
 * Text in the colour of its background is judged with the element's ancestors (paint.ts).
 */

/** Below this size text is drawn but nobody reads it (a quarter of the usual 16 px). */
const UNREADABLE_FONT_PX = 4;
/** An element pushed this far out is off every screen (the `left: -9999px` idiom). */
const OFF_SCREEN_PX = -999;
const MAX_DECLARATIONS = 64;
/** The properties that decide whether an element's text is seen (here, in hiding-sheet.ts and in paint.ts). */
const SEEN_PROPERTIES = new Set([
  'display', 'visibility', 'content-visibility', 'opacity', 'font-size', 'font', 'color', '-webkit-text-fill-color',
  'background', 'background-color', 'background-image', 'background-clip', '-webkit-background-clip', 'clip', 'clip-path',
  'overflow', 'width', 'height', 'max-width', 'max-height', 'text-indent', 'position', 'left', 'top', 'right', 'bottom',
  'margin-left', 'margin-top', 'transform',
]);
/** Below this opacity text is drawn too faint to read (`opacity: 0.01`). */
export const MIN_OPACITY = 0.1;

/** The shortest and longest of SEEN_PROPERTIES (`top`, `-webkit-background-clip`). */
const SEEN_LENGTHS = [3, 23];

/**
 * `a: b; c: d !important` → {a: 'b', c: 'd'}, lower-cased; the last of a property wins, as in CSS. Only the first
 * MAX_DECLARATIONS pieces between semicolons are read.
 */
export const declarations = (css: string): Map<string, string> => {
  const out = new Map<string, string>();
  let start = 0;
  for (let piece = 0; piece < MAX_DECLARATIONS && start <= css.length; piece++) {
    let end = css.indexOf(';', start);
    if (end < 0) end = css.length;
    const colon = css.indexOf(':', start);
    if (colon > start && colon < end) {
      const raw = css.slice(start, colon).trim();
      // Only what decides whether text is seen is read further (a page's fonts and margins are most of its CSS).
      // Lower-casing keeps a name's length unless it holds U+0130, which no seen property does.
      const name = raw.length >= SEEN_LENGTHS[0] && raw.length <= SEEN_LENGTHS[1] ? raw.toLowerCase() : '';
      if (SEEN_PROPERTIES.has(name)) out.set(name, css.slice(colon + 1, end).replace(/!\s*important/i, '').trim().toLowerCase());
    }
    start = end + 1;
  }
  return out;
};

const LENGTH = /^([+-]?(?:\d+\.?\d*|\.\d+))(px|pt|pc|em|rem|ex|ch|%|vw|vh|vmin|vmax|in|cm|mm|q)?$/;
const PX_PER: Record<string, number> = { px: 1, pt: 4 / 3, pc: 16, em: 16, rem: 16, ex: 8, ch: 8, '%': 0.16, in: 96, cm: 37.8, mm: 3.78, q: 0.945, vw: 10, vh: 10, vmin: 10, vmax: 10 };

/** A CSS length in pixels (em and % against the usual 16 px, viewport units against a small screen); NaN if none. */
export const pixels = (value: string | undefined): number => {
  const m = value ? LENGTH.exec(value.trim()) : null;
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  if (!m[2]) return n === 0 ? 0 : Number.NaN;
  return n * (PX_PER[m[2]] ?? 1);
};

/** The size in a `font` shorthand (`bold 0/0 a`, `12px/1.5 Arial`): the first length, before any `/line-height`. */
const fontShorthandSize = (font: string): number => {
  for (const token of font.split(/\s+/)) {
    const size = pixels(token.split('/')[0]);
    if (!Number.isNaN(size) && (token.includes('/') || /[a-z%]$/.test(token.split('/')[0]) || size === 0)) return size;
  }
  return Number.NaN;
};

const unreadable = (px: number) => !Number.isNaN(px) && px < UNREADABLE_FONT_PX;

/** A colour too transparent to read: `transparent`, an alpha (rgba, hsla, `/ a`, #rgba, #rrggbbaa) near zero. */
const transparentColour = (c: string | undefined): boolean => {
  const colour = c ? parseColour(c) : undefined;
  return !!colour && colour.a < MIN_OPACITY;
};

/** `rect(0 0 0 0)`, `rect(1px, 1px, 1px, 1px)`: the screen-reader-only clip. */
const clippedAway = (d: Map<string, string>): boolean => {
  const clip = d.get('clip');
  if (clip?.startsWith('rect(')) {
    const sides = clip.slice(5, -1).split(/[\s,]+/).filter(Boolean).map(pixels);
    if (sides.length === 4 && sides.every((s) => !Number.isNaN(s) && s <= 1)) return true;
  }
  const path = d.get('clip-path');
  if (path) {
    const inset = /^inset\(\s*(\d+(?:\.\d+)?)%/.exec(path);
    if (inset && Number(inset[1]) >= 50) return true;
    if (/^circle\(\s*0(?:px|%)?\s*[)a]/.test(path)) return true;
  }
  return false;
};

/** The opacity a declaration gives (`0.5`, `50%`), or NaN. */
export const opacityOf = (value: string | undefined): number => {
  const m = value ? /^([+-]?(?:\d+\.?\d*|\.\d+))(%?)$/.exec(value.trim()) : null;
  if (!m) return Number.NaN;
  const n = Number(m[1]) / (m[2] ? 100 : 1);
  return Math.min(1, Math.max(0, n));
};

const MOVES = /(translate(?:x|y|3d)?|matrix(?:3d)?)\(([^()]*)\)/g;

/** A translation far to the left or top, where no scrolling reaches (`translateX(-10000px)`, a matrix's offsets). */
const translatedAway = (transform: string): boolean => {
  // An exec loop rather than matchAll, which copies the pattern on every call; every match is a function's text.
  MOVES.lastIndex = 0;
  for (let m = MOVES.exec(transform); m; m = MOVES.exec(transform)) {
    const args = m[2].split(/[\s,]+/).filter(Boolean);
    const offsets =
      m[1] === 'matrix' ? args.slice(4, 6).map((a) => pixels(`${a}px`)) : m[1] === 'matrix3d' ? args.slice(12, 14).map((a) => pixels(`${a}px`)) : args.slice(0, 2).map(pixels);
    if (offsets.some((o) => o <= OFF_SCREEN_PX)) return true;
  }
  return false;
};

const SIZES = ['width', 'height', 'max-width', 'max-height'];
const offScreen = (d: Map<string, string>, property: string) => pixels(d.get(property)) <= OFF_SCREEN_PX;

/** Zero-sized with its overflow cut, or placed far off the page. */
const outOfSight = (d: Map<string, string>): boolean => {
  const overflow = d.get('overflow');
  if (overflow && /\b(hidden|clip)\b/.test(overflow)) {
    for (const p of SIZES) {
      const px = pixels(d.get(p));
      if (!Number.isNaN(px) && px <= 1) return true;
    }
  }
  if (offScreen(d, 'text-indent')) return true;
  const position = d.get('position');
  if (position && /^(absolute|fixed|relative|sticky)$/.test(position)) {
    if (offScreen(d, 'left') || offScreen(d, 'top') || offScreen(d, 'right') || offScreen(d, 'bottom')) return true;
  }
  if (offScreen(d, 'margin-left') || offScreen(d, 'margin-top')) return true;
  const transform = d.get('transform');
  return !!transform && (/^scale[xy]?\(\s*0(?:\.0+)?\s*[,)]/.test(transform) || translatedAway(transform));
};

/** Whether these declarations hide the element's text from a reader. */
export const hidesText = (d: Map<string, string>): boolean => {
  if (d.get('display') === 'none') return true;
  if (/^(hidden|collapse)$/.test(d.get('visibility') ?? '')) return true;
  if (d.get('content-visibility') === 'hidden') return true;
  if (opacityOf(d.get('opacity')) < MIN_OPACITY) return true;
  if (unreadable(pixels(d.get('font-size')))) return true;
  const font = d.get('font');
  if (font && unreadable(fontShorthandSize(font))) return true;
  // Transparent text over a gradient clipped to the text is a drawn effect, not hidden text.
  const clip = d.get('background-clip');
  const webkitClip = d.get('-webkit-background-clip');
  const paintedByBackground = (clip !== undefined || webkitClip !== undefined) && /\btext\b/.test(`${clip ?? ''} ${webkitClip ?? ''}`);
  if (!paintedByBackground && (transparentColour(d.get('color')) || transparentColour(d.get('-webkit-text-fill-color')))) return true;
  return clippedAway(d) || outOfSight(d);
};

/** Declarations that draw an element: a rule that says so for a selector outweighs one that hides it. */
export const showsElement = (d: Map<string, string>): boolean => {
  const display = d.get('display');
  return (display !== undefined && display !== 'none') || d.get('visibility') === 'visible';
};

/** Words one of the hiding declarations needs: most inline styles (colours, margins) have none and are not parsed. */
const MAY_HIDE = /none|hidden|collapse|opacity|font|transparent|rgba|hsla|#|clip|indent|-\d{3}|scale|width|height|translate|matrix/i;

/** An inline `style` attribute that hides the element's text. */
export const hiddenByStyle = (style: string): boolean => MAY_HIDE.test(style) && hidesText(declarations(style));
