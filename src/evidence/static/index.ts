import { bundle as generatedBundle, type BundledFile } from '../../generated/bundle';
import { propertiesOf, toEntityId } from '../shared/entities';
import { checkBudget, explainCost } from '../sparql/budget';
import { finishResults, prepareQuery } from '../sparql/prepare';
import { ENTITY_IRI, RDFS_LABEL, SCHEMA_DESCRIPTION } from '../sparql/prefixes';
import { EvidenceError, type EntityLabel, type Evidence } from '../types';
import { searchCorpus } from './corpus';
import { normTitle, parsePage, type SnapshotPage } from './pages';
import { graphEngine } from './engine';

export interface SnapshotBundle {
  graph: BundledFile[];
  pages: BundledFile[];
}

export interface StaticOptions {
  db: D1Database;
  /** Defaults to the generated bundle of data/snapshot; tests pass fixtures. */
  bundle?: SnapshotBundle;
  maxRows?: number;
  maxResultBytes?: number;
  /** Refuse a query before it runs when it would build more rows than this (sparql/cost.ts). */
  maxEstimatedRows?: number;
  /** Work units one query may spend inside the engine before it is stopped (engine.ts). */
  maxQueryWork?: number;
}

const parsed = new WeakMap<BundledFile[], { list: SnapshotPage[]; byTitle: Map<string, SnapshotPage> }>();
const pagesOf = (files: BundledFile[]) => {
  let hit = parsed.get(files);
  if (!hit) {
    const list = files.map(parsePage);
    hit = { list, byTitle: new Map(list.map((p) => [normTitle(p.title), p])) };
    parsed.set(files, hit);
  }
  return hit;
};

const escapeLiteral = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ');

/**
 * The offline evidence: the snapshot graph in oxigraph (WDQS-compatible SPARQL) and the snapshot pages searched
 * with D1 FTS5. Time cap: oxigraph runs synchronously and workerd's clock does not advance meanwhile, so a timer
 * cannot stop it. The cost is bounded instead twice: before a query runs, its shape is checked against the store's
 * statistics (sparql/cost.ts refuses explosive joins with advice), and while it runs, the engine itself counts work
 * and memory and traps at its budget (engine.ts), after which a fresh engine serves the next query.
 */
export const createStaticEvidence = (options: StaticOptions): Evidence => {
  const source = options.bundle ?? generatedBundle;
  const maxRows = options.maxRows ?? 1000;
  const maxBytes = options.maxResultBytes ?? 512 * 1024;
  const engine = () => graphEngine(source.graph);
  const pages = () => pagesOf(source.pages);

  const evidence: Evidence = {
    kind: 'static',
    async search(query, limit = 5) {
      return searchCorpus(options.db, pages().list, query, Math.min(Math.max(1, limit), 20));
    },
    async page(title) {
      const page = pages().byTitle.get(normTitle(title));
      if (!page) return null;
      const { file: _file, body: _body, ...rest } = page;
      return rest;
    },
    async wikidataId(title) {
      const direct = toEntityId(title);
      if (direct) return direct;
      const page = pages().byTitle.get(normTitle(title));
      // Sitelink first (the graph is the authority), then the page header, then an exact English label.
      const sitelink = engine().query(
        `SELECT ?item WHERE { ?article <http://schema.org/about> ?item ; <http://schema.org/name> ?name .
           FILTER(LCASE(STR(?name)) = "${escapeLiteral(normTitle(page?.title ?? title))}" && STRSTARTS(STR(?article), "https://en.wikipedia.org/")) } LIMIT 1`,
      );
      const fromLink = 'results' in sitelink ? sitelink.results.bindings[0]?.item?.value : undefined;
      if (fromLink?.startsWith(ENTITY_IRI)) return fromLink.slice(ENTITY_IRI.length);
      if (page?.wikidataId) return page.wikidataId;
      const label = title.replace(/_/g, ' ').trim();
      const byLabel = engine().query(
        `SELECT ?item WHERE { ?item <${RDFS_LABEL}> ?l . FILTER(LCASE(STR(?l)) = "${escapeLiteral(label.toLowerCase())}" && STRSTARTS(STR(?item), "${ENTITY_IRI}Q")) } LIMIT 1`,
      );
      const fromLabel = 'results' in byLabel ? byLabel.results.bindings[0]?.item?.value : undefined;
      return fromLabel ? fromLabel.slice(ENTITY_IRI.length) : null;
    },
    async sparql(query) {
      const prepared = prepareQuery(query, { emulateWdqs: true, maxRows });
      const stats = engine().stats();
      checkBudget(prepared.text, stats, options.maxEstimatedRows);
      try {
        return finishResults(engine().query(prepared.text, options.maxQueryWork), maxBytes);
      } catch (err) {
        // Stopped by the engine's own budget: point at what the estimate sees as the expensive part, if anything.
        const advice = err instanceof EvidenceError && err.code === 'too_large' ? explainCost(prepared.text, stats) : '';
        throw advice ? new EvidenceError(`${err instanceof Error ? err.message : ''} In this query: ${advice}`, 'too_large') : err;
      }
    },
    async labels(ids, language = 'en') {
      const clean = [...new Set(ids.map(toEntityId).filter((x): x is string => !!x))].slice(0, 200);
      if (!clean.length) return [];
      const lang = /^[a-z]{2,3}(-[a-z0-9]+)*$/i.test(language) ? language.toLowerCase() : 'en';
      const r = engine().query(
        `SELECT ?e ?l ?d WHERE { VALUES ?e { ${clean.map((id) => `<${ENTITY_IRI}${id}>`).join(' ')} }
           OPTIONAL { ?e <${RDFS_LABEL}> ?l FILTER(LANG(?l) = "${lang}") }
           OPTIONAL { ?e <${SCHEMA_DESCRIPTION}> ?d FILTER(LANG(?d) = "${lang}") } }`,
      );
      const found = new Map<string, EntityLabel>();
      for (const row of 'results' in r ? r.results.bindings : []) {
        const id = row.e.value.slice(ENTITY_IRI.length);
        if (!found.has(id)) found.set(id, { id, label: row.l?.value, description: row.d?.value });
      }
      return clean.map((id) => found.get(id) ?? { id });
    },
    properties: (id, limit) => propertiesOf(evidence, id, limit),
    async health() {
      const e = engine();
      try {
        const r = e.query('ASK { ?s ?p ?o }', 1_000_000);
        const ready = 'boolean' in r && r.boolean;
        return { checked: true, ready, ...e.status(), ...(ready ? {} : { message: 'the snapshot graph is empty' }) };
      } catch (err) {
        return { checked: true, ready: false, message: `the graph store does not answer: ${(err as Error).message}`, ...e.status() };
      }
    },
  };
  return evidence;
};
