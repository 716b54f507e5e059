import wasm from '../../generated/oxigraph/engine.wasm';
import { createOxigraph, MEMORY_LIMIT_BYTES, type OxigraphInstance } from '../../generated/oxigraph/engine.js';
import type { Store } from 'oxigraph/web.js';
import type { BundledFile } from '../../generated/bundle';
import type { GraphStats } from '../sparql/cost';
import { EvidenceError, type SparqlResults } from '../types';

/**
 * Work units one query may spend (one unit = one function entry or loop turn inside the engine). About 60 million
 * units run per second on this machine's V8, so the default stops a query after about a third of a second (legit
 * queries of the few-shot libraries and the QALD gold set use at most 160,000), while a full
 * scan of the ~5,000-triple snapshot costs about 0.6 million.
 */
export const DEFAULT_QUERY_WORK = 20_000_000;
const FULL_TANK = 0x7fffffff;
/** Serialised results larger than this are refused before JSON.parse makes a second, bigger copy. */
const MAX_RESULT_CHARS = 8_000_000;

export interface EngineStatus {
  /** Triples in the store (0 until the first use builds it). */
  triples: number;
  /** How many times the engine trapped and was replaced by a fresh instance since the isolate started. */
  restarts: number;
  lastFault?: string;
}

interface Live {
  ox: OxigraphInstance;
  store: Store;
  triples: number;
  stats?: GraphStats;
}

/**
 * The snapshot graph in a metered oxigraph instance (cli/build-oxigraph.mjs compiles a work budget and a memory cap
 * into the engine). A trap of any kind leaves the engine's Rust state half-updated, so the instance is discarded and
 * the next query builds a fresh one from the compiled module and the bundled snapshot: one bad query can fail, it
 * cannot poison the store for everybody after it.
 */
export class GraphEngine {
  private live: Live | null = null;
  private restarts = 0;
  private lastFault?: string;

  constructor(private readonly files: BundledFile[]) {}

  /** Runs a query with a work budget; engine errors become EvidenceError with a message the agent can act on. */
  query(text: string, work = DEFAULT_QUERY_WORK): SparqlResults {
    const live = this.ensure();
    const fuel = live.ox.exports.__fuel;
    fuel.value = Math.min(Math.max(1, Math.floor(work)), FULL_TANK);
    let raw: unknown;
    try {
      raw = live.store.query(text, { results_format: 'application/sparql-results+json' });
    } catch (err) {
      if (!isTrap(err)) {
        const message = (err instanceof Error ? err.message : String(err)).slice(0, 400);
        throw new EvidenceError(`SPARQL error: ${message}`, 'syntax');
      }
      throw this.fault(err, live, (fuel.value as number) < 0);
    } finally {
      if (this.live) fuel.value = FULL_TANK;
    }
    const json = String(raw);
    if (json.length > MAX_RESULT_CHARS) {
      throw new EvidenceError(`The result is ${Math.round(json.length / 1e6)} MB of JSON; ask for fewer rows or shorter values (no giant CONCAT or GROUP_CONCAT).`, 'too_large');
    }
    return JSON.parse(json) as SparqlResults;
  }

  /** Counts per predicate and distinct subjects/objects, for the cost estimate (computed once per instance). */
  stats(): GraphStats {
    const live = this.ensure();
    if (live.stats) return live.stats;
    const num = (t: { value: string } | undefined) => Number(t?.value ?? 0);
    const rows = (text: string) => {
      const r = this.query(text, FULL_TANK);
      return 'results' in r ? r.results.bindings : [];
    };
    const [all] = rows('SELECT (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no) WHERE { ?s ?p ?o }');
    const predicates = new Map<string, { count: number; subjects: number; objects: number }>();
    for (const r of rows('SELECT ?p (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no) WHERE { ?s ?p ?o } GROUP BY ?p')) {
      predicates.set(r.p.value, { count: num(r.n), subjects: num(r.ns), objects: num(r.no) });
    }
    live.stats = { triples: num(all?.n), subjects: num(all?.ns), objects: num(all?.no), predicates };
    return live.stats;
  }

  status(): EngineStatus {
    return { triples: this.live?.triples ?? 0, restarts: this.restarts, ...(this.lastFault ? { lastFault: this.lastFault } : {}) };
  }

  /** Test hook: behaves exactly as if the engine had trapped in the middle of a query. */
  crashForTesting(): void {
    const live = this.ensure();
    this.fault(new WebAssembly.RuntimeError('unreachable (forced by a test)'), live, false);
  }

  private ensure(): Live {
    if (this.live) return this.live;
    const ox = createOxigraph(wasm);
    const store = new ox.Store();
    for (const f of this.files) {
      try {
        store.load(f.text, { format: 'text/turtle', base_iri: 'http://www.wikidata.org/entity/' });
      } catch (err) {
        throw new Error(`snapshot graph file ${f.file} does not parse: ${(err as Error).message}`);
      }
    }
    this.live = { ox, store, triples: store.size };
    return this.live;
  }

  private fault(err: unknown, live: Live, outOfWork: boolean): EvidenceError {
    const memoryUsed = live.ox.exports.memory.buffer.byteLength;
    // Forget the store without calling into the broken instance, so no finaliser ever does either.
    (live.store as unknown as { __destroy_into_raw?: () => number }).__destroy_into_raw?.();
    this.live = null;
    this.restarts++;
    const detail = err instanceof Error ? err.message : String(err);
    if (outOfWork) {
      this.lastFault = 'work budget exhausted';
      return new EvidenceError(
        'Refused: the query needed more work than one query may spend, and was stopped. Make it more selective: bind a ' +
          'subject or object to an entity id, use fixed predicates instead of variables, connect every triple pattern to ' +
          'the others through shared variables, and drop ORDER BY / COUNT over large joins.',
        'too_large',
      );
    }
    // Near the memory cap an allocation failure aborts the engine ("unreachable").
    const nearCap = memoryUsed > MEMORY_LIMIT_BYTES * 0.75;
    this.lastFault = `engine trap: ${detail.slice(0, 120)}`;
    return new EvidenceError(
      nearCap
        ? 'Refused: the query needed more memory than one query may use, and was stopped. Make it more selective (bind subjects or predicates, add LIMIT, avoid ORDER BY over large joins).'
        : `The SPARQL engine failed on this query (${detail.slice(0, 120)}) and was restarted; simplify the query (less nesting, fewer unbound patterns).`,
      'too_large',
    );
  }
}

/** WebAssembly traps, and V8's stack overflow inside the engine, leave the instance unusable. */
const isTrap = (err: unknown): boolean =>
  err instanceof WebAssembly.RuntimeError || (err instanceof RangeError && /call stack/i.test(err.message));

const engines = new WeakMap<BundledFile[], GraphEngine>();

/** One engine per isolate and per bundle (tests pass fixtures). */
export const graphEngine = (files: BundledFile[]): GraphEngine => {
  let e = engines.get(files);
  if (!e) engines.set(files, (e = new GraphEngine(files)));
  return e;
};
