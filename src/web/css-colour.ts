/**
 * CSS colours, read the way a browser reads them, for one question: can a reader tell this text from what is
 * behind it? Hex (`#fff`, `#ffffff`, with alpha), `rgb()`/`rgba()` and `hsl()`/`hsla()` (commas or spaces, numbers
 * or percentages, `/ alpha`) and the named colours. Anything else (`var(--x)`, `color-mix()`, system colours) is
 * unknown, and unknown never hides text.
 */

export interface Rgba {
  r: number;
  g: number;
  b: number;
  /** 0 (transparent) to 1. */
  a: number;
}

// The CSS named colours, as 6-digit hex (CSS Color Module Level 4, "named colors").
const NAMED_TABLE =
  'aliceblue f0f8ff antiquewhite faebd7 aqua 00ffff aquamarine 7fffd4 azure f0ffff beige f5f5dc bisque ffe4c4 black 000000 ' +
  'blanchedalmond ffebcd blue 0000ff blueviolet 8a2be2 brown a52a2a burlywood deb887 cadetblue 5f9ea0 chartreuse 7fff00 ' +
  'chocolate d2691e coral ff7f50 cornflowerblue 6495ed cornsilk fff8dc crimson dc143c cyan 00ffff darkblue 00008b ' +
  'darkcyan 008b8b darkgoldenrod b8860b darkgray a9a9a9 darkgreen 006400 darkgrey a9a9a9 darkkhaki bdb76b ' +
  'darkmagenta 8b008b darkolivegreen 556b2f darkorange ff8c00 darkorchid 9932cc darkred 8b0000 darksalmon e9967a ' +
  'darkseagreen 8fbc8f darkslateblue 483d8b darkslategray 2f4f4f darkslategrey 2f4f4f darkturquoise 00ced1 ' +
  'darkviolet 9400d3 deeppink ff1493 deepskyblue 00bfff dimgray 696969 dimgrey 696969 dodgerblue 1e90ff ' +
  'firebrick b22222 floralwhite fffaf0 forestgreen 228b22 fuchsia ff00ff gainsboro dcdcdc ghostwhite f8f8ff ' +
  'gold ffd700 goldenrod daa520 gray 808080 green 008000 greenyellow adff2f grey 808080 honeydew f0fff0 hotpink ff69b4 ' +
  'indianred cd5c5c indigo 4b0082 ivory fffff0 khaki f0e68c lavender e6e6fa lavenderblush fff0f5 lawngreen 7cfc00 ' +
  'lemonchiffon fffacd lightblue add8e6 lightcoral f08080 lightcyan e0ffff lightgoldenrodyellow fafad2 lightgray d3d3d3 ' +
  'lightgreen 90ee90 lightgrey d3d3d3 lightpink ffb6c1 lightsalmon ffa07a lightseagreen 20b2aa lightskyblue 87cefa ' +
  'lightslategray 778899 lightslategrey 778899 lightsteelblue b0c4de lightyellow ffffe0 lime 00ff00 limegreen 32cd32 ' +
  'linen faf0e6 magenta ff00ff maroon 800000 mediumaquamarine 66cdaa mediumblue 0000cd mediumorchid ba55d3 ' +
  'mediumpurple 9370db mediumseagreen 3cb371 mediumslateblue 7b68ee mediumspringgreen 00fa9a mediumturquoise 48d1cc ' +
  'mediumvioletred c71585 midnightblue 191970 mintcream f5fffa mistyrose ffe4e1 moccasin ffe4b5 navajowhite ffdead ' +
  'navy 000080 oldlace fdf5e6 olive 808000 olivedrab 6b8e23 orange ffa500 orangered ff4500 orchid da70d6 ' +
  'palegoldenrod eee8aa palegreen 98fb98 paleturquoise afeeee palevioletred db7093 papayawhip ffefd5 peachpuff ffdab9 ' +
  'peru cd853f pink ffc0cb plum dda0dd powderblue b0e0e6 purple 800080 rebeccapurple 663399 red ff0000 ' +
  'rosybrown bc8f8f royalblue 4169e1 saddlebrown 8b4513 salmon fa8072 sandybrown f4a460 seagreen 2e8b57 ' +
  'seashell fff5ee sienna a0522d silver c0c0c0 skyblue 87ceeb slateblue 6a5acd slategray 708090 slategrey 708090 ' +
  'snow fffafa springgreen 00ff7f steelblue 4682b4 tan d2b48c teal 008080 thistle d8bfd8 tomato ff6347 ' +
  'turquoise 40e0d0 violet ee82ee wheat f5deb3 white ffffff whitesmoke f5f5f5 yellow ffff00 yellowgreen 9acd32';

const NAMED = new Map<string, string>();
{
  const parts = NAMED_TABLE.split(' ');
  for (let i = 0; i + 1 < parts.length; i += 2) NAMED.set(parts[i], parts[i + 1]);
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

const fromHex = (hex: string): Rgba | undefined => {
  const h = hex.length <= 4 ? [...hex].map((c) => c + c).join('') : hex;
  if (!/^[0-9a-f]{6}(?:[0-9a-f]{2})?$/.test(h)) return undefined;
  const n = (i: number) => Number.parseInt(h.slice(i, i + 2), 16);
  return { r: n(0), g: n(2), b: n(4), a: h.length === 8 ? n(6) / 255 : 1 };
};

/** `50%` → 0.5 of `scale`; `0.5` → 0.5 × (1 or `scale` for channel values). */
const part = (token: string, scale: number): number => {
  const pct = token.endsWith('%');
  const n = Number.parseFloat(token);
  if (!Number.isFinite(n)) return Number.NaN;
  return pct ? (n / 100) * scale : n;
};

const alphaOf = (token: string | undefined): number => (token === undefined ? 1 : clamp(part(token, 1), 0, 1));

/** The arguments of `rgb(…)`/`hsl(…)`: commas or spaces, and an alpha after `/` or as a fourth value. */
const argsOf = (inside: string): { values: string[]; alpha?: string } | undefined => {
  const [main, slash] = inside.split('/');
  const values = main.split(/[\s,]+/).filter(Boolean);
  if (values.length === 4 && slash === undefined) return { values: values.slice(0, 3), alpha: values[3] };
  if (values.length !== 3) return undefined;
  return { values, alpha: slash?.trim() || undefined };
};

const hslToRgb = (h: number, s: number, l: number): [number, number, number] => {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [255 * f(0), 255 * f(8), 255 * f(4)];
};

/** A CSS colour value (lower-case) as RGBA, or undefined when it is not one this reads. */
export const parseColour = (value: string | undefined): Rgba | undefined => {
  if (!value) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'transparent') return { r: 0, g: 0, b: 0, a: 0 };
  if (v.startsWith('#')) return fromHex(v.slice(1));
  const named = NAMED.get(v);
  if (named) return fromHex(named);
  const fn = /^(rgba?|hsla?)\(([^()]*)\)$/.exec(v);
  const args = fn ? argsOf(fn[2]) : undefined;
  if (!fn || !args) return undefined;
  const [x, y, z] = args.values;
  let rgb: [number, number, number];
  if (fn[1].startsWith('rgb')) rgb = [part(x, 255), part(y, 255), part(z, 255)];
  else rgb = hslToRgb(((Number.parseFloat(x) % 360) + 360) % 360, clamp(part(y, 1) / (y.endsWith('%') ? 1 : 100), 0, 1), clamp(part(z, 1) / (z.endsWith('%') ? 1 : 100), 0, 1));
  if (rgb.some((c) => !Number.isFinite(c))) return undefined;
  const a = alphaOf(args.alpha);
  if (!Number.isFinite(a)) return undefined;
  return { r: clamp(rgb[0], 0, 255), g: clamp(rgb[1], 0, 255), b: clamp(rgb[2], 0, 255), a };
};

/** The colour a background-shorthand value paints (`#fff url(x.png)`, `white`), when it names one. */
export const colourIn = (value: string): Rgba | undefined => {
  const fn = /(?:rgba?|hsla?)\([^()]*\)/.exec(value);
  if (fn) return parseColour(fn[0]);
  for (const token of value.split(/\s+/)) {
    const c = token.startsWith('#') || NAMED.has(token) || token === 'transparent' ? parseColour(token) : undefined;
    if (c) return c;
  }
  return undefined;
};

/** `top` drawn over `bottom` (an opaque colour): what a reader sees there. */
export const over = (top: Rgba, bottom: Rgba): Rgba => ({
  r: top.r * top.a + bottom.r * (1 - top.a),
  g: top.g * top.a + bottom.g * (1 - top.a),
  b: top.b * top.a + bottom.b * (1 - top.a),
  a: 1,
});

const linearOf = (c: number) => {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
/** `linearOf` for each whole channel value, worked out once (most colours are written with whole channels). */
const LINEAR = Float64Array.from({ length: 256 }, (_, c) => linearOf(c));
const linear = (c: number) => (Number.isInteger(c) ? LINEAR[c] : linearOf(c));
const luminance = (c: Rgba) => 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);

/** WCAG's contrast ratio of two opaque colours: 1 (the same) to 21 (black on white). */
export const contrast = (a: Rgba, b: Rgba): number => {
  const la = luminance(a);
  const lb = luminance(b);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
};

export const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
export const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };
