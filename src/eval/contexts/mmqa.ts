import type { TableCell, TableContext } from './types';

/** A Wikipedia entity inside an MMQA table cell. */
export interface MMQALink {
  text?: string;
  wiki_title?: string;
  url?: string;
}

/** One line of `MMQA_tables.jsonl` (fields the builder reads). */
export interface MMQATable {
  id: string;
  title?: string;
  url?: string;
  table: {
    table_name?: string;
    header: { column_name: string }[];
    table_rows: { text: string; links?: MMQALink[] }[][];
  };
}

/** One line of `MMQA_texts.jsonl`: a paragraph of a Wikipedia page. */
export interface MMQAText {
  id: string;
  title?: string;
  url?: string;
  text: string;
}

/** One line of `MMQA_images.jsonl`: an image of a Wikipedia page; `path` is its file in the images folder. */
export interface MMQAImage {
  id: string;
  title?: string;
  url?: string;
  path: string;
}

const WIKI = /^https?:\/\/[a-z-]+\.wikipedia\.org(\/wiki\/.+)$/i;

const decoded = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * The key that ties a cell to the texts and images of the same Wikipedia page: `/wiki/<Page>`, as HybridQA writes
 * its links. MMQA links cells, texts and images to pages only through their URLs (or titles).
 * @example mmqaLinkKey('https://en.wikipedia.org/wiki/Slumdog_Millionaire') // '/wiki/Slumdog_Millionaire'
 */
export const mmqaLinkKey = (url?: string, title?: string): string | undefined => {
  const m = url ? WIKI.exec(url.trim()) : null;
  if (m) return decoded(m[1]).replace(/ /g, '_');
  if (url?.trim()) return url.trim();
  return title?.trim() ? `/wiki/${title.trim().replace(/ /g, '_')}` : undefined;
};

const cellOf = (c: { text?: unknown; links?: MMQALink[] } | undefined): TableCell => ({
  text: typeof c?.text === 'string' ? c.text : String(c?.text ?? ''),
  links: [...new Set((Array.isArray(c?.links) ? c.links : []).map((l) => mmqaLinkKey(l?.url, l?.wiki_title)).filter((k): k is string => !!k))],
});

/**
 * MultiModalQA's program-mode context: the question's table with each cell linked to its Wikipedia pages, the
 * question's text paragraphs and images keyed by their page (several paragraphs of one page are joined), so
 * `extract_info(cell, …)` reads what a cell's page says or shows. Texts and images of pages no cell links to are
 * still sent; program mode lists them by key. `images` pairs each image record with the URL to send (a `data:` URL).
 */
export const mmqaContext = (
  table: MMQATable,
  texts: readonly MMQAText[] = [],
  images: readonly { image: MMQAImage; url: string }[] = [],
): TableContext => {
  const rows = (table.table.table_rows ?? []).map((row) => row.map(cellOf));
  const passages: Record<string, string> = {};
  for (const t of texts) {
    const key = mmqaLinkKey(t.url, t.title) ?? t.id;
    if (typeof t.text !== 'string' || !t.text.trim()) continue;
    passages[key] = passages[key] ? `${passages[key]}\n\n${t.text}` : t.text;
  }
  const pictures: Record<string, string> = {};
  for (const { image, url } of images) {
    let key = mmqaLinkKey(image.url, image.title) ?? image.id;
    // A page with two images keeps both: the second under its own key.
    for (let n = 2; key in pictures; n++) key = `${mmqaLinkKey(image.url, image.title) ?? image.id} (image ${n})`;
    pictures[key] = url;
  }
  const page = table.title?.trim();
  const name = table.table.table_name?.trim();
  const title = page && name ? `${page} — ${name}` : page || name;
  return {
    table: { ...(title ? { title } : {}), columns: (table.table.header ?? []).map((h) => String(h?.column_name ?? '')), rows },
    passages,
    ...(Object.keys(pictures).length ? { images: pictures } : {}),
  };
};
