import * as z from 'zod';
import { verdictBody } from './verdict-records';

/**
 * What each kind of request returns (the Evidence interface's types in ./types.ts, and the text a KG call gives),
 * as schemas. An archive is a file anyone can write: a body is checked against its request's shape when it is
 * uploaded and again when it is replayed, so no tool ever receives `{}` where it expects search hits.
 * Extra fields are allowed (an archive from a newer server may carry more); missing or mistyped ones are not.
 */

const text = z.string();
const optionalText = z.string().optional();

const searchHits = z.array(z.object({ title: text, snippet: text, url: text }));

const page = z
  .object({
    title: text,
    url: text,
    wikidataId: optionalText,
    sections: z.array(z.object({ heading: text, text })),
    tables: z.array(text),
  })
  .nullable();

// Any term type a SPARQL server may name (uri, literal, bnode, typed-literal from older servers); the tools read `value`.
const sparqlTerm = z.object({ type: text, value: text, datatype: optionalText, 'xml:lang': optionalText });

const sparqlResults = z.union([
  z.object({ head: z.object({ vars: z.array(text) }), results: z.object({ bindings: z.array(z.record(z.string(), sparqlTerm)) }), truncated: z.boolean().optional() }),
  z.object({ head: z.object({}), boolean: z.boolean() }),
]);

const labels = z.array(z.object({ id: text, label: optionalText, description: optionalText }));

const properties = z.array(z.object({ property: text, label: optionalText, examples: z.array(text), qualifiers: z.array(text).optional() }));

/** An Evidence method's name, `kg` for a CRAG KG API call, or `verify` for a model's support verdict. */
export type RequestKind = 'search' | 'page' | 'wikidataId' | 'sparql' | 'labels' | 'properties' | 'kg' | 'verify';

const BODY_SHAPES: Record<RequestKind, z.ZodType> = {
  search: searchHits,
  page,
  wikidataId: text.nullable(),
  sparql: sparqlResults,
  labels,
  properties,
  kg: text,
  verify: verdictBody,
};

/** What is wrong with `body` as the answer to a request of this kind, in a few words; null when nothing is. */
export const bodyShapeProblem = (kind: RequestKind, body: unknown): string | null => {
  const result = BODY_SHAPES[kind].safeParse(body);
  if (result.success) return null;
  const issue = result.error.issues[0];
  const where = issue.path.length ? `at ${issue.path.map(String).join('.')}: ` : '';
  return `${where}${issue.message.replace(/^Invalid input: /, '')}`.slice(0, 200);
};
