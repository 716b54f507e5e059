/**
 * The evidence program and rag modes answer from, as a person gives it in the ask form: a table (pasted or from a
 * file) for program mode, web pages by file for rag mode. Everything is checked here first, so a wrong file is
 * named before a request is sent; the API checks it again (src/api/schemas.ts).
 */

/** The API's caps (docs/API.md): 4 MB per page, 16 MB per request with context. */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;
export const MAX_CONTEXT_BYTES = 16 * 1024 * 1024;
const MAX_PAGES = 50;

const TABLE_FORMATS =
  'Expected a HybridQA table file (WikiTables-WithLinks tables_tok/<id>.json: {"header": […], "data": […]}), ' +
  'our context JSON ({"table": {"columns": […], "rows": […]}, "passages": {…}}) or a table alone ({"columns", "rows"}).';

const text = (v) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
const linksOf = (v) => (Array.isArray(v) ? v.filter((l) => typeof l === 'string') : []);

/** A HybridQA cell `[text, links]`, or our `{text, links}`, or a bare value, as our cell. */
const cellOf = (c) => {
  if (Array.isArray(c)) return { text: text(c[0]), links: linksOf(c[1]) };
  if (c && typeof c === 'object') return { text: text(c.text), links: linksOf(c.links) };
  return { text: text(c), links: [] };
};

/**
 * WikiTables-WithLinks: the title is the page title with the section title (the section often says what the rows
 * are), as the eval's context builder does (src/eval/contexts/hybridqa.ts).
 */
const fromWikiTable = (t) => {
  const page = text(t.title).trim();
  const section = text(t.section_title).trim();
  const title = page && section && section !== page ? `${page} — ${section}` : page || section;
  return { ...(title ? { title } : {}), columns: t.header.map((h) => cellOf(h).text), rows: t.data.map((row) => (Array.isArray(row) ? row.map(cellOf) : [])) };
};

const fromOurTable = (t) => ({
  ...(t.title ? { title: text(t.title) } : {}),
  columns: t.columns.map(text),
  rows: t.rows.map((row) => (Array.isArray(row) ? row.map(cellOf) : [])),
});

const isWikiTable = (v) => v && Array.isArray(v.header) && Array.isArray(v.data);
const isOurTable = (v) => v && Array.isArray(v.columns) && Array.isArray(v.rows);

const passageMap = (v, where) => {
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where} must be an object of link → passage text.`);
  return Object.fromEntries(Object.entries(v).filter(([, p]) => typeof p === 'string' && p.trim()));
};

/**
 * A table as program mode's `context`: `{table: {title?, columns, rows}, passages, images?}`. Throws an Error whose
 * message says what is wrong, in words.
 */
export const parseTableText = (raw) => {
  const source = text(raw).trim();
  if (!source) throw new Error('The table is empty. ' + TABLE_FORMATS);
  let value;
  try {
    value = JSON.parse(source);
  } catch (e) {
    throw new Error(`The table is not JSON (${e.message}). ${TABLE_FORMATS}`);
  }
  let context;
  if (isWikiTable(value)) context = { table: fromWikiTable(value), passages: {} };
  else if (isOurTable(value)) context = { table: fromOurTable(value), passages: {} };
  else if (value && isOurTable(value.table)) {
    context = { table: fromOurTable(value.table), passages: passageMap(value.passages, '"passages"') };
    if (value.images && typeof value.images === 'object') context.images = value.images;
  } else if (value && isWikiTable(value.table)) {
    context = { table: fromWikiTable(value.table), passages: passageMap(value.passages, '"passages"') };
  } else {
    throw new Error(`This JSON is not a table. ${TABLE_FORMATS}`);
  }
  if (!context.table.columns.length) throw new Error('The table has no columns: program mode needs at least one.');
  return context;
};

/** HybridQA's request_tok/<id>.json (`{"/wiki/…": "passage"}`): the passages the table's links lead to. */
export const parsePassagesText = (raw) => {
  let value;
  try {
    value = JSON.parse(text(raw));
  } catch (e) {
    throw new Error(`The passages file is not JSON (${e.message}). Expected HybridQA's request_tok/<id>.json: {"/wiki/…": "passage text"}.`);
  }
  return passageMap(value, 'The passages file');
};

/** Only the passages some cell links to are sent (the rest cannot be reached by the program). */
export const withPassages = (context, passages) => {
  const linked = new Set(context.table.rows.flat().flatMap((c) => c.links));
  const merged = { ...context.passages };
  for (const [link, p] of Object.entries(passages)) if (linked.has(link)) merged[link] = p;
  return { ...context, passages: merged };
};

export const describeTable = (context) => {
  const { table, passages } = context;
  const n = Object.keys(passages).length;
  return `${table.title ? `${table.title}: ` : ''}${table.columns.length} columns × ${table.rows.length} rows, ${n} linked passage${n === 1 ? '' : 's'}.`;
};

/** Web pages for rag mode from chosen files: `{pages: [{url, html, lastModified}]}`; too big or too many is named. */
export const pagesFromFiles = async (files) => {
  const list = [...files];
  if (list.length > MAX_PAGES) throw new Error(`${list.length} pages chosen; a request takes at most ${MAX_PAGES}.`);
  let total = 0;
  const pages = [];
  for (const f of list) {
    if (f.size > MAX_PAGE_BYTES) throw new Error(`${f.name} is ${(f.size / 1048576).toFixed(1)} MB; a page may be at most 4 MB.`);
    total += f.size;
    if (total > MAX_CONTEXT_BYTES) throw new Error('The pages add up to more than 16 MB, the most one request may carry.');
    // The file name stands in for the page's address: the run's sources and citations name it.
    pages.push({ url: f.name, html: await f.text(), lastModified: new Date(f.lastModified).toUTCString() });
  }
  return pages;
};
