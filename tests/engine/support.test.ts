import { describe, expect, it } from 'vitest';
import { attribute, evidenceBook } from '../../src/engine/attribution/attribute';
import { contextPageKey } from '../../src/engine/attribution/context-documents';
import { questionFocus } from '../../src/engine/attribution/question-focus';
import type { Claim } from '../../src/engine/types';
import { requestKey, type EvidenceRecord, type RecordedRequest } from '../../src/evidence/recording';
import type { Page, SearchHit, SparqlResults } from '../../src/evidence/types';
import { pairHash } from '../../src/evidence/verdict-records';

// Issue 40: a citation says whether its record supports the answer or only mentions it, and only support counts.
const record = (request: RecordedRequest, body: unknown): EvidenceRecord => ({ key: requestKey(request), request, response: { body } });
const page = (title: string, text: string): Page => ({ title, url: `https://en.wikipedia.org/wiki/${title.replace(/ /g, '_')}`, sections: [{ heading: '', text }], tables: [] });
const pageRecord = (title: string, text: string) => record({ source: 'evidence', kind: 'static', method: 'page', args: [title] }, page(title, text));
const search = (query: string, hits: Array<[string, string]>) =>
  record(
    { source: 'evidence', kind: 'static', method: 'search', args: [query] },
    hits.map(([title, snippet]): SearchHit => ({ title, snippet, url: `https://en.wikipedia.org/wiki/${title.replace(/ /g, '_')}` })),
  );
const sparql = (query: string, id: string): EvidenceRecord =>
  record({ source: 'evidence', kind: 'static', method: 'sparql', args: [query] }, {
    head: { vars: ['x'] },
    results: { bindings: [{ x: { type: 'uri', value: `http://www.wikidata.org/entity/${id}` } }] },
  } satisfies SparqlResults);
const linkedId = (title: string, id: string) => record({ source: 'evidence', kind: 'static', method: 'wikidataId', args: [title] }, id);
const supportOf = (claim: Claim, records: EvidenceRecord[], question: string, context?: Record<string, unknown>) =>
  attribute([claim], evidenceBook(records, context, question));

describe('the support grade of a citation', () => {
  const MARINERS = 'What year did the Seattle Mariners first advance to the American League Championship Series?';
  const hits = search(MARINERS, [
    ['Michael Jordan', '…retired in 1993, played baseball, and returned to the Bulls in March 1995 to win three more titles…'],
    ['Ken Griffey Jr.', '…in 1995 he led the Seattle Mariners to their first American League Championship Series…'],
  ]);

  it('grades a search hit about another subject mentions, and one that names the question’s subject supports (quoted there)', () => {
    const onlyJordan = search(MARINERS, [['Michael Jordan', '…returned to the Bulls in March 1995…']]);
    const a = supportOf({ source: 'wikipedia', answer: '1995', keys: [onlyJordan.key] }, [onlyJordan], MARINERS);
    expect(a).toMatchObject({ confidence: 'none', agreementSources: [] });
    expect(a.citations).toEqual([expect.objectContaining({ verified: true, support: 'mentions', quote: 'Michael Jordan — …returned to the Bulls in March 1995…' })]);
    // The Jordan hit comes first and holds 1995 too; the hit that names the Mariners is the one quoted.
    const b = supportOf({ source: 'wikipedia', answer: '1995', keys: [hits.key] }, [hits], MARINERS);
    expect(b).toMatchObject({ confidence: 'one_source', agreementSources: ['wikipedia'] });
    expect(b.citations[0]).toMatchObject({ support: 'supports', quote: expect.stringContaining('Ken Griffey Jr.') });
  });

  it('grades a page about the subject supports (its sentences need not repeat the name), another page only where a sentence names it', () => {
    const JANE = 'What is the language of Jane Eyre?';
    const austen = pageRecord('Jane Austen', 'Jane Austen was an English novelist. Her novels include Emma.');
    const eyre = pageRecord('Jane Eyre', 'It is a novel by Charlotte Brontë. It was written in English.');
    const bronte = pageRecord('Charlotte Brontë', 'She was an English novelist. Jane Eyre, her best-known novel, is written in English.');
    expect(supportOf({ source: 'wikipedia', answer: 'English', keys: [austen.key] }, [austen], JANE).citations[0]).toMatchObject({ support: 'mentions', quote: 'Jane Austen was an English novelist.' });
    expect(supportOf({ source: 'wikipedia', answer: 'English', keys: [eyre.key] }, [eyre], JANE).citations[0]).toMatchObject({ support: 'supports', quote: 'It was written in English.' });
    expect(supportOf({ source: 'wikipedia', answer: 'English', keys: [bronte.key] }, [bronte], JANE).citations[0]).toMatchObject({
      support: 'supports',
      quote: 'Jane Eyre, her best-known novel, is written in English.',
    });
    // A question written in lower case: the page's title stands in it.
    const lower = supportOf({ source: 'wikipedia', answer: 'English', keys: [eyre.key] }, [eyre], 'what is the language of jane eyre');
    expect(lower.citations[0].support).toBe('supports');
  });

  it('grades a KG row by the entity the run linked from the question: the query names it, or the row holds it', () => {
    const Q = 'Who directed Forrest Gump?';
    const link = linkedId('Forrest Gump', 'Q134773');
    const byQuery = sparql('SELECT ?x WHERE { wd:Q134773 wdt:P57 ?x }', 'Q187364');
    expect(supportOf({ source: 'wikidata', answer: 'Q187364', keys: [byQuery.key] }, [link, byQuery], Q)).toMatchObject({ confidence: 'one_source', citations: [{ support: 'supports' }] });
    // The same row, from a query about an entity the question does not name (the run linked it on its own).
    const other = linkedId('Cast Away', 'Q109116');
    const offTopic = sparql('SELECT ?x WHERE { wd:Q109116 wdt:P57 ?x }', 'Q187364');
    expect(supportOf({ source: 'wikidata', answer: 'Q187364', keys: [offTopic.key] }, [link, other, offTopic], Q)).toMatchObject({
      confidence: 'none',
      citations: [{ verified: true, support: 'mentions' }],
    });
    // A row whose subject is the linked entity (the query asked from the other side).
    const reverse = sparql('SELECT ?x WHERE { ?x wdt:P57 wd:Q187364 }', 'Q134773');
    expect(supportOf({ source: 'wikidata', answer: 'Q134773', keys: [reverse.key] }, [link, reverse], Q).citations[0].support).toBe('supports');
    // Linking a title the question does not name links nothing.
    expect([...questionFocus(Q, [other]).ids]).toEqual([]);
    expect([...questionFocus(Q, [link]).ids]).toEqual(['Q134773']);
  });

  it('does not take a record about the answer itself for one about the question, nor a year for a name', () => {
    // A comparison whose answer is one of the names it asks about: any record naming the answer names "the subject".
    const OLDER = 'Who is older, Morgan Freeman or Anthony Hopkins?';
    const seven = search(OLDER, [['Seven (1995 film)', '…Brad Pitt and Morgan Freeman play two detectives…']]);
    expect(supportOf({ source: 'wikipedia', answer: 'Morgan Freeman', keys: [seven.key] }, [seven], OLDER).citations[0].support).toBe('mentions');
    const freeman = pageRecord('Morgan Freeman', 'Morgan Freeman (born 1937) is an American actor.');
    expect(supportOf({ source: 'wikipedia', answer: 'Morgan Freeman', keys: [freeman.key] }, [freeman], OLDER).citations[0].support).toBe('mentions');
    // The page about the other one, which names the answer, is about the question.
    const hopkins = pageRecord('Anthony Hopkins', 'Anthony Hopkins (born 1937) is younger than Morgan Freeman by a few months.');
    expect(supportOf({ source: 'wikipedia', answer: 'Morgan Freeman', keys: [hopkins.key] }, [hopkins], OLDER).citations[0].support).toBe('supports');
    // "in 2012" qualifies the question; a record naming 2012 is not about its subject.
    const VOTE = 'Who won the popular vote for president in 2012?';
    const obama = search(VOTE, [['Barack Obama', '…in 2012 he won re-election against Mitt Romney…']]);
    expect(questionFocus(VOTE).names).toEqual([]);
    expect(supportOf({ source: 'wikipedia', answer: 'Barack Obama', keys: [obama.key] }, [obama], VOTE).citations[0].support).toBe('mentions');
  });

  it('follows one hop: an entity the run linked that a record about the question’s subject names', () => {
    const Q = 'In which city was the director of Forrest Gump born?';
    const hit = search('Forrest Gump', [['Forrest Gump', 'a 1994 film directed by Robert Zemeckis']]);
    const link = linkedId('Robert Zemeckis', 'Q187364');
    const birth = sparql('SELECT ?x WHERE { wd:Q187364 wdt:P19 ?x }', 'Q1297');
    const labels = record({ source: 'evidence', kind: 'static', method: 'labels', args: [['Q1297']] }, [{ id: 'Q1297', label: 'Chicago' }]);
    const claim: Claim = { source: 'wikidata', answer: 'Chicago', keys: [birth.key] };
    expect(supportOf(claim, [hit, link, birth, labels], Q)).toMatchObject({ confidence: 'one_source', citations: [{ support: 'supports' }] });
    // Without the record about Forrest Gump that names him, Robert Zemeckis is the agent's own guess.
    expect(supportOf(claim, [link, birth, labels], Q)).toMatchObject({ confidence: 'none', citations: [{ support: 'mentions' }] });
    const offTopic = search('Forrest Gump', [['Tom Hanks', 'starred in a film directed by Robert Zemeckis']]);
    expect(supportOf(claim, [offTopic, link, birth, labels], Q).confidence).toBe('none');
  });

  it('grades a CRAG KG result by whether its call names what the question names', () => {
    const Q = 'how many oscars has steven spielberg won?';
    const named = record({ source: 'kg', endpoint: 'movie/get_person_info', args: { person_name: 'Steven Spielberg' } }, '{"oscar_awards": 3}');
    const other = record({ source: 'kg', endpoint: 'movie/get_person_info', args: { person_name: 'James Cameron' } }, '{"oscar_awards": 3}');
    expect(supportOf({ source: 'kg', answer: '3', keys: [named.key] }, [named], Q).citations[0].support).toBe('supports');
    expect(supportOf({ source: 'kg', answer: '3', keys: [other.key] }, [other], Q).citations[0].support).toBe('mentions');
  });

  it('lets only supported sources lift the confidence; a source that only mentions is shown as such', () => {
    const Q = 'Who directed Forrest Gump?';
    const link = linkedId('Forrest Gump', 'Q134773');
    const row = sparql('SELECT ?x WHERE { wd:Q134773 wdt:P57 ?x }', 'Q187364');
    const labels = record({ source: 'evidence', kind: 'static', method: 'labels', args: [['Q187364']] }, [{ id: 'Q187364', label: 'Robert Zemeckis' }]);
    const unrelated = pageRecord('Cast Away', 'Cast Away is a 2000 film directed by Robert Zemeckis.');
    const claims: Claim[] = [
      { source: 'wikipedia', answer: 'Robert Zemeckis', keys: [unrelated.key] },
      { source: 'wikidata', answer: 'Robert Zemeckis', keys: [row.key] },
    ];
    const a = attribute(claims, evidenceBook([link, row, labels, unrelated], undefined, Q), 'Robert Zemeckis');
    expect(a).toMatchObject({ confidence: 'one_source', agreementSources: ['wikidata'] });
    expect(a.citations.map((c) => [c.source, c.verified, c.support])).toEqual([
      ['wikipedia', true, 'mentions'],
      ['wikidata', true, 'supports'],
    ]);
  });

  it('grades a computed answer by its operands: supported when each stands where the question’s subject does', () => {
    const Q = 'How many years apart were Inception and Interstellar released?';
    const pages = [
      pageRecord('Inception', 'Inception is a film released in 2010.'),
      pageRecord('Interstellar', 'Interstellar is a film released in 2014.'),
      pageRecord('Tenet', 'Tenet was released in 2020, ten years after 2010.'),
    ];
    const claim = (keys: string[]): Claim => ({ source: 'calculator', answer: '4', keys, operands: ['2014', '2010'] });
    expect(supportOf(claim([pages[0].key, pages[1].key]), pages, Q).citations.map((c) => c.support)).toEqual(['supports', 'supports']);
    expect(supportOf(claim([pages[2].key, pages[1].key]), pages, Q).confidence).toBe('none');
  });

  it('reads a supplied page’s title as what it is about, without the site’s name, also for a question in lower case', () => {
    const page = (title: string) => ({ pages: [{ url: 'https://example.org/o', html: `<title>${title}</title><p>It is sold in English and 101 other languages.</p>` }] });
    const claim = { source: 'web', answer: 'English', keys: [contextPageKey(0)] };
    expect(supportOf(claim, [], 'Which language is Microsoft Office 2019 available in?', page('Microsoft Office 2019')).citations[0]).toMatchObject({ verified: true, support: 'supports' });
    expect(supportOf(claim, [], 'which language is microsoft office 2019 available in?', page('Microsoft Office 2019 - Wikipedia')).citations[0].support).toBe('supports');
    expect(supportOf(claim, [], 'which language is microsoft office 2019 available in?', page('Bananas - Wikipedia')).citations[0].support).toBe('mentions');
  });

  it('takes a model’s recorded verdict on a pair over the structural grade, both ways', async () => {
    const Q = 'What year did the Seattle Mariners first advance to the American League Championship Series?';
    const onlyJordan = search(Q, [['Michael Jordan', '…returned to the Bulls in March 1995…']]);
    const quote = 'Michael Jordan — …returned to the Bulls in March 1995…';
    const verdict = async (support: string) => record({ source: 'verify', pair: await pairHash(Q, '1995', quote) }, { support, question: Q, answer: '1995', quote });
    const claims: Claim[] = [{ source: 'wikipedia', answer: '1995', keys: [onlyJordan.key] }];
    expect(attribute(claims, evidenceBook([onlyJordan, await verdict('supports')], undefined, Q))).toMatchObject({
      confidence: 'one_source',
      citations: [{ support: 'supports', supportBy: 'model' }],
    });
    // A verdict about another question is not this run's.
    const elsewhere = record({ source: 'verify', pair: await pairHash('other', '1995', quote) }, { support: 'supports', question: 'other', answer: '1995', quote });
    expect(attribute(claims, evidenceBook([onlyJordan, elsewhere], undefined, Q)).citations[0]).toEqual(expect.not.objectContaining({ supportBy: 'model' }));
    const hitsRecord = search(Q, [['Ken Griffey Jr.', '…in 1995 he led the Seattle Mariners to their first American League Championship Series…']]);
    const griffey = 'Ken Griffey Jr. — …in 1995 he led the Seattle Mariners to their first American League Championship Series…';
    const no = record({ source: 'verify', pair: await pairHash(Q, '1995', griffey) }, { support: 'mentions', question: Q, answer: '1995', quote: griffey });
    expect(attribute([{ ...claims[0], keys: [hitsRecord.key] }], evidenceBook([hitsRecord, no], undefined, Q))).toMatchObject({
      confidence: 'none',
      citations: [{ support: 'mentions', supportBy: 'model' }],
    });
  });
});
