import { BLACK, colourIn, contrast, over, parseColour, WHITE, type Rgba } from './css-colour';
import { declarations, opacityOf } from './hiding-style';

/**
 * How an element's text is painted, inherited down the page: its colour, the colour behind it (the nearest declared
 * background, white at the top as in every browser), and its opacity (multiplied down). Text whose colour a reader
 * cannot tell from its background (`color:#fff` on white, `color:white;background:#fff`, the same `rgb()`) is not
 * seen; a background we cannot know (an image, a gradient, text painted by its background) never hides anything.
 */
export interface Paint {
  /** Undefined when the colour is one this does not read (`var(--x)`): then nothing is judged by colour. */
  color: Rgba | undefined;
  /** Undefined when unknown (an image, a gradient). */
  background: Rgba | undefined;
  opacity: number;
  /** The colour reads as the background (blendsIn), worked out once per element. */
  blends: boolean;
}

export const PAGE_PAINT: Paint = { color: BLACK, background: WHITE, opacity: 1, blends: false };

/** Contrast under which two colours read as one (WCAG's ratio: 1 is the same colour; body text asks for 4.5). */
export const MIN_CONTRAST = 1.1;

/** A link's colour when nothing styles it (the browsers' default). */
const LINK_BLUE: Rgba = { r: 0, g: 0, b: 238, a: 1 };

const NO_DECLARATIONS: ReadonlyMap<string, string> = new Map();

/** Words one of the paint declarations needs: most inline styles have none and are not parsed. */
const MAY_PAINT = /color|background|opacity/i;

const colourOf = (value: string, parent: Rgba | undefined): Rgba | undefined => {
  if (/^(inherit|unset|currentcolor)$/.test(value)) return parent;
  if (value === 'initial') return BLACK;
  return parseColour(value);
};

/** The background an element declares, painted over its parent's; undefined = unknown. */
const backgroundOf = (d: ReadonlyMap<string, string>, bgcolor: string | undefined, parent: Rgba | undefined): Rgba | undefined => {
  if (d.size === 0 && bgcolor === undefined) return parent;
  const clip = d.get('background-clip');
  const webkitClip = d.get('-webkit-background-clip');
  if ((clip !== undefined || webkitClip !== undefined) && /\btext\b/.test(`${clip ?? ''} ${webkitClip ?? ''}`)) return undefined;
  const image = d.get('background-image');
  const shorthand = d.get('background');
  if ((image && image !== 'none') || (shorthand && /url\(|gradient\(|image\(|var\(/.test(shorthand))) return undefined;
  const declared = d.get('background-color') ?? shorthand ?? bgcolor;
  if (declared === undefined || /^(inherit|unset|initial|none|transparent)$/.test(declared)) return parent;
  const c = d.has('background-color') ? parseColour(declared) : colourIn(declared);
  if (!c) return declared === shorthand ? parent : undefined;
  if (c.a <= 0) return parent;
  if (c.a >= 1) return c;
  return parent ? over(c, parent) : undefined;
};

/**
 * The paint of an element from its parent's, its own inline style and attributes (`bgcolor`, `<font color>`), and
 * the declarations the page's `<style>` rules give it (hiding-sheet.ts); inline style wins, as in CSS.
 */
export const paintOf = (parent: Paint, name: string, attribs: Record<string, string>, fromSheet?: ReadonlyMap<string, string>): Paint => {
  const inline = attribs.style && MAY_PAINT.test(attribs.style) ? declarations(attribs.style) : undefined;
  const bgcolor = attribs.bgcolor?.trim().toLowerCase();
  if (!inline && !fromSheet && !bgcolor && name !== 'font' && name !== 'a') return parent;
  const d: ReadonlyMap<string, string> = !inline ? (fromSheet ?? NO_DECLARATIONS) : fromSheet ? new Map([...fromSheet, ...inline]) : inline;
  const ownColour = d.get('color') ?? (name === 'font' ? attribs.color?.trim().toLowerCase() : undefined);
  const color = ownColour !== undefined ? colourOf(ownColour, parent.color) : name === 'a' && attribs.href !== undefined ? LINK_BLUE : parent.color;
  const opacity = opacityOf(d.get('opacity'));
  const background = backgroundOf(d, bgcolor, parent.background);
  return { color, background, opacity: Number.isNaN(opacity) ? parent.opacity : parent.opacity * opacity, blends: blendsIn(color, background) };
};

// The last pair judged: a page's links and inherited colours ask about the same two colours again and again.
let judged: { color?: Rgba; background?: Rgba; blends: boolean } = { color: undefined, background: undefined, blends: false };

/** Whether text of this colour reads as its background. */
const blendsIn = (color: Rgba | undefined, background: Rgba | undefined): boolean => {
  if (!color || !background) return false;
  if (judged.color === color && judged.background === background) return judged.blends;
  const blends = contrast(color.a >= 1 ? color : over(color, background), background) < MIN_CONTRAST;
  judged = { color, background, blends };
  return blends;
};
