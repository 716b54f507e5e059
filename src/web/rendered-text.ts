import { BLOCK_TAGS } from './blocks';
import { DEFAULT_PAGE_OPTIONS } from './page';
import { buildTree, buildTreeAsync, type TreeHandler, type TreeLimits } from './tree-builder';
import { skippedSubtrees } from './visibility';

/** The text a reader is shown is read up to here (the attribution reads no further into a document). */
export const MAX_RENDERED_CHARS = 1_000_000;

const DEFAULT_LIMITS: TreeLimits = { maxDepth: DEFAULT_PAGE_OPTIONS.maxDepth, maxWork: DEFAULT_PAGE_OPTIONS.maxWork };

/**
 * Element events → the text a reader is shown: what is not drawn is left out (visibility.ts), inline elements join
 * their neighbours, block elements and table rows start lines, table cells are apart by a space, and the page's
 * title is the first line.
 */
const reader = (): { handler: TreeHandler; finish(): string } => {
  const unseen = skippedSubtrees();
  let out = '';
  let title = '';
  let inTitle = false;
  let titleDone = false;
  const add = (s: string) => {
    if (out.length < MAX_RENDERED_CHARS) out += s;
  };
  const handler: TreeHandler = {
    onopentag(name, attribs) {
      if (name === 'title' && !titleDone) inTitle = true;
      if (unseen.open(name, attribs)) return;
      if (name === 'td' || name === 'th') add(' ');
      else if (BLOCK_TAGS.has(name)) add('\n');
    },
    ontext(text) {
      if (inTitle) title += text;
      else if (!unseen.text(text)) add(text);
    },
    onclosetag(name) {
      if (name === 'title' && inTitle) {
        inTitle = false;
        titleDone = true;
      }
      const hidden = unseen.skipping();
      unseen.close(name);
      if (!hidden && BLOCK_TAGS.has(name) && name !== 'td' && name !== 'th') add('\n');
    },
  };
  const finish = () =>
    `${title}\n${out}`
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join('\n')
      .slice(0, MAX_RENDERED_CHARS);
  return { handler, finish };
};

/**
 * A page's text as a reader sees it, one block per line. Unlike the extraction the model reads (extract.ts), nothing
 * a reader sees is dropped as furniture: this is the text an answer is verified against. One pass of the bounded
 * tree builder; never throws (what was read before a failure still counts).
 * @example renderedText('<p>Quen<b>dri</b>th</p><p hidden>Other</p>') // 'Quendrith'
 */
export const renderedText = (html: string, limits: TreeLimits = DEFAULT_LIMITS): string => {
  const r = reader();
  try {
    buildTree(html, r.handler, limits);
  } catch {
    // The tokenizer is forgiving; a page must never take the attribution down with it.
  }
  return r.finish();
};

/** `renderedText` handing the event loop back between slices of the page (see buildTreeAsync). */
export const renderedTextAsync = async (html: string, limits: TreeLimits = DEFAULT_LIMITS): Promise<string> => {
  const r = reader();
  try {
    await buildTreeAsync(html, r.handler, limits);
  } catch {
    // As above.
  }
  return r.finish();
};
