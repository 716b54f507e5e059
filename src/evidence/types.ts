/** Wikipedia + Wikidata behind one interface: the bundled snapshot (static) or Wikimedia (live). */

export interface SearchHit {
  title: string;
  snippet: string;
  url: string;
}

export interface PageSection {
  heading: string;
  text: string;
}

export interface Page {
  title: string;
  url: string;
  /** Q-id of the page's Wikidata item, when it has one. */
  wikidataId?: string;
  sections: PageSection[];
  /** Tables rendered as markdown. */
  tables: string[];
}

export interface EntityLabel {
  id: string;
  label?: string;
  description?: string;
}

/** SPARQL 1.1 Query Results JSON. */
export type SparqlTerm =
  | { type: 'uri'; value: string }
  | { type: 'literal'; value: string; datatype?: string; 'xml:lang'?: string }
  | { type: 'bnode'; value: string };

export type SparqlResults =
  | {
      head: { vars: string[] };
      results: { bindings: Record<string, SparqlTerm>[] };
      /** Set when rows were dropped to respect the result-size cap. */
      truncated?: boolean;
    }
  | { head: Record<string, never>; boolean: boolean };

/** An entity's outgoing properties with their labels, to ground query writing. */
export interface PropertyUse {
  property: string;
  label?: string;
  /** A few example values (ids or literals) with labels when known. */
  examples: string[];
  /** Qualifier properties used on this property's statements (e.g. P580 start time), with labels when known. */
  qualifiers?: string[];
}

/** What /healthz reports about the evidence: whether it answered a trivial query just now. */
export type EvidenceHealth =
  | { checked: true; ready: boolean; message?: string; triples?: number; restarts?: number; lastFault?: string }
  /** Live endpoints are remote services: a health probe does not query them (their failures reach the agent as tool errors). */
  | { checked: false; message: string };

export interface Evidence {
  readonly kind: 'static' | 'live';
  search(query: string, limit?: number): Promise<SearchHit[]>;
  /** null when the page does not exist. */
  page(title: string): Promise<Page | null>;
  wikidataId(title: string): Promise<string | null>;
  /** Runs a query that already passed the safety check; throws EvidenceError on failure. */
  sparql(query: string): Promise<SparqlResults>;
  labels(ids: string[], language?: string): Promise<EntityLabel[]>;
  properties(id: string, limit?: number): Promise<PropertyUse[]>;
  /** Optional so test doubles need not implement it; /healthz treats a missing one as not checked. */
  health?(): Promise<EvidenceHealth>;
}

export class EvidenceError extends Error {
  /** `backoff`: the host asked every client to wait longer than this request may, so it was not sent. */
  constructor(message: string, readonly code: 'refused' | 'timeout' | 'upstream' | 'not_found' | 'too_large' | 'syntax' | 'backoff') {
    super(message);
    this.name = 'EvidenceError';
  }
}
