import { processPage, processPageAsync, type ProcessedPage } from './page';

/** The text a reader is shown is read up to here (the attribution reads no further into a document). */
export const MAX_RENDERED_CHARS = 1_000_000;

/** A page as the model is shown it and as an answer is verified against: its title, prose and tables. */
export interface RenderedPage {
  title: string;
  /** The prose, one block per line. */
  text: string;
  /** The page's data tables as markdown. */
  tables: string[];
}

const rendering = (page: ProcessedPage): RenderedPage => ({
  title: page.title,
  text: page.text.slice(0, MAX_RENDERED_CHARS),
  tables: page.tables.map((t) => t.markdown),
});

/**
 * One rendering of a page for both its readers: rag mode's prompt is cut from it (page.ts, into chunks) and the
 * attribution verifies answers against it, so an answer can only rest on text the model could have read. What a
 * browser does not draw is left out as each element opens (visibility.ts: hidden, background-coloured, faded, moved
 * off the page, …), and so is page furniture (menus, cookie banners: boilerplate.ts). Never throws.
 * @example renderedPage('<title>T</title><p>Quen<b>dri</b>th</p><p hidden>Other</p>') // {title: 'T', text: 'Quendrith', tables: []}
 */
export const renderedPage = (html: string): RenderedPage => rendering(processPage(html));

/** `renderedPage` handing the event loop back between slices of the page (see buildTreeAsync). */
export const renderedPageAsync = async (html: string): Promise<RenderedPage> => rendering(await processPageAsync(html));

const asText = (page: RenderedPage): string => [page.title, page.text, ...page.tables].filter(Boolean).join('\n').slice(0, MAX_RENDERED_CHARS);

/** The rendered page as one text: its title, then its prose, then its tables. */
export const renderedText = (html: string): string => asText(renderedPage(html));

/** `renderedText` in slices. */
export const renderedTextAsync = async (html: string): Promise<string> => asText(await renderedPageAsync(html));
