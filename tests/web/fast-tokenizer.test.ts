import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { FAST_STATES, FastTokenizer } from '../../src/web/fast-tokenizer';

// The page tokenizer steps over runs of text, quoted values and names (src/web/fast-tokenizer.ts); every event and
// offset must stay htmlparser2's own, or the extraction would read a different page than htmlparser2 parses.
const CALLBACKS = [
  'onattribdata', 'onattribentity', 'onattribend', 'onattribname', 'oncdata', 'onclosetag', 'oncomment', 'ondeclaration',
  'onend', 'onopentagend', 'onopentagname', 'onprocessinginstruction', 'onselfclosingtag', 'ontext', 'ontextentity',
] as const;

/** Every event the tokenizer reports for `html`, written in pieces of `piece` characters. */
const events = (Make: typeof Tokenizer, html: string, piece: number): string[] => {
  const seen: string[] = [];
  const callbacks = Object.fromEntries(CALLBACKS.map((name) => [name, (...args: unknown[]) => seen.push(`${name} ${args.join(',')}`)]));
  const tokenizer = new Make({ decodeEntities: true }, callbacks as unknown as TokenizerCallbacks);
  for (let at = 0; at < html.length; at += piece) tokenizer.write(html.slice(at, at + piece));
  tokenizer.end();
  return seen;
};

const PAGES = [
  '<p class="a b" id=x data-k=\'q&amp;r\'>Caf&eacute; &amp b&auml;r &#x27;&#8212; &notit; x &lt; y</p>',
  '<DIV Title="A &quot;B&quot;" hidden><Span CLASS=Note>Text</Span></DIV><br/><img src=a.png alt="">',
  '<script>if (a < b && c) { s = "</p>"; }</script><style>.x>p{color:red}</style><title>A &amp; B</title>',
  '<textarea>a <b> &amp;</textarea><xmp><i>raw</i></xmp><!-- a -- b --><![CDATA[x]]><?php y ?><!DOCTYPE html>',
  '< p>not a tag</ p><a href="x\nnext line">link</a ><p/ ><input value=\'"\'/>tail & more &',
  `<table>${'<tr><td colspan="2">cell &nbsp; text</td><td>x</td></tr>'.repeat(30)}</table><p>after`,
];

describe('the page tokenizer', () => {
  it('stands on the htmlparser2 internals it steps over (a release that renames them falls back to htmlparser2 itself)', () => {
    expect(FAST_STATES).toBe(true);
  });

  it.each(PAGES.map((page, i) => [i, page]))('reports htmlparser2\'s own events and offsets for page %i, whole or in pieces', (_, page) => {
    for (const piece of [page.length, 1, 7, 64]) expect(events(FastTokenizer, page, piece)).toEqual(events(Tokenizer, page, piece));
  });
});
