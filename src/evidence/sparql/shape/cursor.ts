import { expand } from '../safety';
import { isWord, type Token } from '../tokenize';
import type { Pattern, QueryShape, Term } from '../query-shape';

/** The query is not in the subset this parser knows; the caller decides what that means (the engine has the last word). */
export class ShapeError extends Error {}

export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/**
 * The two rules the grammar re-enters from inside: a group (EXISTS, OPTIONAL, nested braces) and a subquery. The
 * entry point hands them in, so the grammar areas can call back up without importing each other in a circle.
 */
export interface Nested {
  group(c: Cursor): Pattern;
  select(c: Cursor): QueryShape;
}

/** One pass over the significant tokens of a query: where it is, what comes next, and the error naming the spot. */
export class Cursor {
  /** The next token's index. */
  pos = 0;
  /** Where the triples block being read began, for the pattern's text in messages. */
  tripleStart = 0;
  private blanks = 0;

  constructor(
    readonly sig: Token[],
    private readonly declared: Map<string, string>,
    readonly nested: Nested,
  ) {}

  peek(k = 0): Token {
    return this.sig[this.pos + k];
  }

  /** The next token is exactly this punctuation or text. */
  at(text: string): boolean {
    return this.peek()?.text === text;
  }

  /** The next token is one of these keywords, in any case. */
  atWord(...words: string[]): boolean {
    return isWord(this.peek(), ...words);
  }

  /** The token at the cursor, which it then passes. */
  next(): Token {
    return this.sig[this.pos++];
  }

  skip(n = 1): void {
    this.pos += n;
  }

  fail(what: string): never {
    const t = this.peek();
    throw new ShapeError(`${what} at ${t ? `"${t.text}" (character ${t.start + 1})` : 'the end of the query'}`);
  }

  /** Consumes the expected punctuation or keyword, or fails naming it. */
  take(text: string): Token {
    if (this.peek()?.text !== text && !isWord(this.peek(), text)) this.fail(`expected "${text}"`);
    return this.next();
  }

  /** One or more of `item`, with a separator between them that `between` recognises at the cursor (and that is passed). */
  separated<T>(item: () => T, between: () => boolean): T[] {
    const items = [item()];
    while (between()) {
      this.skip();
      items.push(item());
    }
    return items;
  }

  /** A new blank node, as a variable nobody can name. */
  fresh(): Term {
    return { kind: 'var', name: `_:b${this.blanks++}` };
  }

  iriOf(t: Token | undefined): string | undefined {
    return t ? expand(t, this.declared) : undefined;
  }

  /** The tokens read since `from`, shortened, for messages. */
  textFrom(from: number): string {
    const s = this.sig.slice(from, this.pos).map((t) => t.text).join(' ');
    return s.length > 80 ? `${s.slice(0, 77)}...` : s;
  }
}
