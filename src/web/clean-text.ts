/** Whitespace runs other than one plain space: the only ones collapsing changes. */
const RUNS = /[^\S ]\s*| \s+/g;

/**
 * Collapses runs of whitespace (incl. no-break spaces) to one space and trims. The same as `replace(/\s+/g, ' ')`,
 * but a single space between words (most of them) is left where it is rather than written again.
 */
export const collapseWhitespace = (text: string): string => text.replace(RUNS, ' ').trim();

/** Cuts text to `max` characters, at a word boundary when one is near, marking the cut with an ellipsis. */
export const truncate = (text: string, max: number): string => {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
};
