import { describe, expect, it } from 'vitest';
import { attribute, attributedAnswer, evidenceBook, type EvidenceBook } from '../../src/engine/attribution/attribute';
import { answerAsAsked, type AnswerPolicy } from '../../src/engine/answer-policy';
import { CONTEXT_TABLE, contextPassageKey } from '../../src/engine/attribution/context-documents';
import { requestKey, type EvidenceRecord, type RecordedRequest } from '../../src/evidence/recording';
import type { Page, SparqlResults } from '../../src/evidence/types';
import { loadConfig } from '../../src/config';
import { parseOptions } from '../../src/engine/options';
import { strategyFor } from '../../src/strategies';

/** A request's options as a run of `mode` reads them (the mode's own schema, parsed as the run service parses it). */
const optionsOf = (mode: string, options: Record<string, unknown> | undefined) => parseOptions(strategyFor(mode, loadConfig({}))!.options, mode, 'mintaka', options);
const NO_ABSTENTION: AnswerPolicy = { abstain: false, booleanStyle: 'yes-no' };
/** A draft as a run stores it: attributed, then given the run's answer policy. */
const finished = (draft: Parameters<typeof attributedAnswer>[0], b: EvidenceBook, policy: AnswerPolicy) => answerAsAsked(attributedAnswer(draft, b), policy);

const record = (request: RecordedRequest, body: unknown): EvidenceRecord => ({ key: requestKey(request), request, response: { body } });
const page = (title: string, text: string): Page => ({ title, url: `https://en.wikipedia.org/wiki/${title.replace(/ /g, '_')}`, sections: [{ heading: '', text }], tables: [] });

const zemeckis = record({ source: 'evidence', kind: 'static', method: 'page', args: ['Robert Zemeckis'] }, page('Robert Zemeckis', 'Robert Lee Zemeckis (born May 14, 1952) is an American filmmaker. He was born in Chicago, Illinois.'));
const query: SparqlResults = { head: { vars: ['place'] }, results: { bindings: [{ place: { type: 'uri', value: 'http://www.wikidata.org/entity/Q1297' } }] } };
const placeOfBirth = record({ source: 'evidence', kind: 'static', method: 'sparql', args: ['SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place }'] }, query);
const labels = record({ source: 'evidence', kind: 'static', method: 'labels', args: [['Q1297']] }, [{ id: 'Q1297', label: 'Chicago' }]);
const ask = record({ source: 'evidence', kind: 'static', method: 'sparql', args: ['ASK { wd:Q187364 wdt:P19 wd:Q1297 }'] }, { head: {}, boolean: true });
const kg = record({ source: 'kg', endpoint: 'movie/get_person_info', args: { person_name: 'Robert Zemeckis' } }, '{"birthday": "1952-05-14", "place": "Chicago"}');
// The run linked Robert Zemeckis from the question: the queries that name Q187364 are about him.
const linked = record({ source: 'evidence', kind: 'static', method: 'wikidataId', args: ['Robert Zemeckis'] }, 'Q187364');
const QUESTION = 'Where was Robert Zemeckis born?';
const book = evidenceBook([zemeckis, placeOfBirth, labels, ask, kg, linked], undefined, QUESTION);

describe('the attribution layer', () => {
  it('verifies an answer a record holds, and quotes the span that holds it', () => {
    const a = attribute([{ source: 'wikipedia', answer: 'Chicago', keys: [zemeckis.key] }], book);
    expect(a).toMatchObject({ confidence: 'one_source', agreementSources: ['wikipedia'] });
    expect(a.citations).toEqual([
      {
        source: 'wikipedia',
        key: zemeckis.key,
        kind: 'wikipedia',
        url: 'https://en.wikipedia.org/wiki/Robert_Zemeckis',
        quote: 'He was born in Chicago, Illinois.',
        verified: true,
        support: 'supports',
      },
    ]);
  });

  it('says none when no record the claim cites holds the answer, and when the key is not this run’s', () => {
    const a = attribute(
      [
        { source: 'wikipedia', answer: 'Los Angeles', keys: [zemeckis.key] },
        { source: 'wikidata', answer: 'Chicago', keys: ['evidence page ["Somewhere else"]'] },
      ],
      book,
    );
    expect(a.confidence).toBe('none');
    expect(a.agreementSources).toEqual([]);
    expect(a.citations.map((c) => [c.source, c.kind, c.verified, c.quote])).toEqual([
      ['wikipedia', 'wikipedia', false, undefined],
      ['wikidata', 'missing', false, undefined],
    ]);
  });

  it('finds entities by label or id, numbers and dates as values, yes/no only in a yes/no fact', () => {
    expect(attribute([{ source: 'wikidata', answer: 'Chicago', keys: [placeOfBirth.key] }], book).citations[0]).toMatchObject({ verified: true, quote: 'place: Q1297 (Chicago)' });
    expect(attribute([{ source: 'wikidata', answer: 'Q1297', keys: [placeOfBirth.key] }], book).confidence).toBe('one_source');
    expect(attribute([{ source: 'wikipedia', answer: '14 May 1952', keys: [zemeckis.key] }], book).confidence).toBe('one_source');
    expect(attribute([{ source: 'wikipedia', answer: '1952', keys: [zemeckis.key] }], book).confidence).toBe('one_source');
    expect(attribute([{ source: 'kg', answer: 'May 14, 1952', keys: [kg.key] }], book).confidence).toBe('one_source');
    expect(attribute([{ source: 'wikidata', answer: 'yes', keys: [ask.key] }], book).confidence).toBe('one_source');
    expect(attribute([{ source: 'wikidata', answer: 'no', keys: [ask.key] }], book).confidence).toBe('none');
    // "yes" written in prose is no yes/no fact.
    expect(attribute([{ source: 'wikipedia', answer: 'yes', keys: [zemeckis.key] }], book).confidence).toBe('none');
  });

  it('verifies a sentence answer whose words stand in one sentence of the page', () => {
    const a = attribute([{ source: 'wikipedia', answer: 'Robert Zemeckis was born in Chicago, Illinois.', keys: [zemeckis.key] }], book);
    expect(a.citations[0].verified).toBe(true);
    expect(a.citations[0].quote).toContain('He was born in Chicago, Illinois.');
  });

  // Issue 34: "Verified in one source: Wikipedia" showed a quote that did not say where the answer stands.
  it("quotes where the page says the answer, not the bare title; the title joins the quote when it holds part of it", () => {
    const pageRecord = (title: string, text: string) => record({ source: 'evidence', kind: 'static', method: 'page', args: [title] }, page(title, text));
    const quoteOf = (answer: string, r: EvidenceRecord) => attribute([{ source: 'wikipedia', answer, keys: [r.key] }], evidenceBook([r])).citations[0];
    const argentina = pageRecord('Argentina', 'Argentina is a country in South America. It won the 2022 FIFA World Cup.');
    expect(quoteOf('Argentina', argentina)).toMatchObject({ verified: true, quote: 'Argentina is a country in South America.' });
    // Only the title names it: the title is quoted with what the page says next.
    const lead = pageRecord('Argentina', 'It is a country in South America, and won the 2022 FIFA World Cup.');
    expect(quoteOf('Argentina', lead)).toMatchObject({ verified: true, quote: 'Argentina — It is a country in South America, and won the 2022 FIFA World Cup.' });
    // A sentence answer whose subject is the title: both stand in the quote, told apart.
    const born = pageRecord('Robert Zemeckis', 'He was born in Chicago, Illinois. He directed films.');
    expect(quoteOf('Robert Zemeckis was born in Chicago', born)).toMatchObject({ verified: true, quote: 'Robert Zemeckis — He was born in Chicago, Illinois.' });
  });

  it('cuts a long sentence around the answer even when the page writes it another way', () => {
    const filler = 'The record lists many unrelated events of the decade in the order they were reported by the press at the time, one after another, ';
    const long = record({ source: 'evidence', kind: 'static', method: 'page', args: ['Events'] }, page('Events', `${filler.repeat(3)}and on 14 May 1952 the founder was born, the note says.`));
    const c = attribute([{ source: 'wikipedia', answer: '1952-05-14', keys: [long.key] }], evidenceBook([long])).citations[0];
    expect(c.verified).toBe(true);
    expect(c.quote).toContain('14 May 1952');
    expect(c.quote!.length).toBeLessThanOrEqual(282);
  });

  it('judges the answer the run gives: one no verified source backs is none, however well the sources agree', () => {
    const both = [
      { source: 'wikipedia', answer: 'Chicago', keys: [zemeckis.key] },
      { source: 'wikidata', answer: 'Chicago', keys: [placeOfBirth.key] },
    ];
    // A merge that preferred the model's memory: no record the run read says Houston.
    const houston = attribute(both, book, 'Houston');
    expect(houston).toMatchObject({ confidence: 'none', agreementSources: [] });
    expect(houston.citations.some((c) => c.quote?.includes('Houston'))).toBe(false);
    expect(attribute(both, book, 'Chicago')).toMatchObject({ confidence: 'all_agree', agreementSources: ['wikipedia', 'wikidata'] });
    // A long answer that states a verified source's answer, or one a cited record holds, is backed.
    expect(attribute(both, book, 'Robert Zemeckis was born in Chicago, Illinois.').confidence).toBe('all_agree');
    expect(attribute([both[0]], book, 'He was born in 1952 in Chicago.').confidence).toBe('one_source');
    // "I don't know" claims nothing, so it is not judged.
    expect(attribute(both, book, "I don't know").confidence).toBe('all_agree');
    expect(finished({ answer: 'Houston', answers: { wikidata: 'Chicago' }, sources: [], claims: [both[1]] }, book, NO_ABSTENTION)).toMatchObject({
      answer: 'Houston',
      confidence: 'none',
      agreementSources: [],
    });
  });

  it('grades agreement over verified sources only; the model’s own knowledge never votes', () => {
    const both = [
      { source: 'wikipedia', answer: 'Chicago', keys: [zemeckis.key] },
      { source: 'wikidata', answer: 'Chicago', keys: [placeOfBirth.key] },
      { source: 'parametric', answer: 'Chicago', keys: [zemeckis.key] },
    ];
    expect(attribute(both, book)).toMatchObject({ confidence: 'all_agree', agreementSources: ['wikipedia', 'wikidata'] });
    const conflict = [
      { source: 'wikipedia', answer: 'Chicago', keys: [zemeckis.key] },
      { source: 'wikidata', answer: '1952', keys: [zemeckis.key] },
    ];
    expect(attribute(conflict, book).confidence).toBe('conflict');
  });

  it("counts an agent's own answer only when no source verified", () => {
    const claims = [
      { source: 'wikidata', answer: 'Chicago', keys: [placeOfBirth.key] },
      { source: 'agent', answer: 'Chicago', keys: [zemeckis.key], fallback: true },
    ];
    expect(attribute(claims, book)).toMatchObject({ confidence: 'one_source', agreementSources: ['wikidata'] });
    expect(attribute([claims[1]], book)).toMatchObject({ confidence: 'one_source', agreementSources: ['agent'] });
  });

  it('reads the caller’s table cell by cell and its passages, and says I don’t know when asked to abstain', () => {
    const context = {
      table: { columns: ['Player', 'Club'], rows: [[{ text: 'Ada' }, { text: 'Leipzig' }], [{ text: 'Bo' }, { text: 'Halle' }]] },
      passages: { '/wiki/Halle': 'Halle is a city in Saxony-Anhalt with 238,000 people.' },
    };
    const b = evidenceBook([], context, 'Which club does Ada play for?');
    const keys = [CONTEXT_TABLE, contextPassageKey('/wiki/Halle')];
    // The program read Ada's club cell: that cell supports its answer; a cell it never read only holds it.
    const read = { cells: [{ row: 0, text: 'Leipzig' }] };
    expect(attribute([{ source: 'table', answer: 'Leipzig', keys, read }], b).citations[0]).toMatchObject({ kind: 'table', quote: 'Player: Ada | Club: Leipzig', verified: true, support: 'supports' });
    expect(attribute([{ source: 'table', answer: 'Leipzig', keys, read }], b).confidence).toBe('one_source');
    expect(attribute([{ source: 'table', answer: 'Leipzig', keys }], b)).toMatchObject({ confidence: 'none', citations: [{ verified: true, support: 'mentions' }] });
    expect(attribute([{ source: 'table', answer: '238000', keys }], b).citations[0]).toMatchObject({ kind: 'passage', url: 'https://en.wikipedia.org/wiki/Halle', verified: true, support: 'mentions' });
    expect(attribute([{ source: 'table', answer: '238000', keys, read: { passages: ['/wiki/Halle'] } }], b).citations[0]).toMatchObject({ kind: 'passage', support: 'supports' });
    // A count no cell holds stays unverified, however the program computed it.
    expect(attribute([{ source: 'table', answer: '2', keys, read }], b).confidence).toBe('none');
    const draft = { answer: '2', answers: { table: '2' }, sources: [], claims: [{ source: 'table', answer: '2', keys }] };
    expect(finished(draft, b, optionsOf('program', { abstain: true }))).toMatchObject({ answer: "I don't know", confidence: 'none' });
    expect(finished(draft, b, optionsOf('program', undefined))).toMatchObject({ answer: '2', confidence: 'none', citations: [{ verified: false }, { verified: false }] });
  });

  it('answers I don’t know under options.abstainBelow in any mode, records the level, and keeps answers at or above it', () => {
    const one = { answer: 'Chicago', answers: { wikipedia: 'Chicago' }, sources: [], claims: [{ source: 'wikipedia', answer: 'Chicago', keys: [zemeckis.key] }] };
    const two = { ...one, answers: { wikipedia: 'Chicago', kg: 'Chicago' }, claims: [...one.claims, { source: 'kg', answer: 'Chicago', keys: [kg.key] }] };
    const ask = (draft: Parameters<typeof finished>[0], mode: string, abstainBelow: string) => finished(draft, book, optionsOf(mode, { abstainBelow }));
    for (const mode of ['agent', 'program', 'rag', 'parametric']) {
      expect(ask(one, mode, 'two_agree')).toMatchObject({ answer: "I don't know", confidence: 'one_source', abstainedBelow: 'two_agree', answers: { wikipedia: 'Chicago' } });
      expect(ask(one, mode, 'one_source')).toMatchObject({ answer: 'Chicago', confidence: 'one_source' });
      expect(ask(one, mode, 'one_source')).not.toHaveProperty('abstainedBelow');
    }
    expect(ask(two, 'agent', 'all_agree')).toMatchObject({ answer: 'Chicago', confidence: 'all_agree' });
    // An answer that is already "I don't know" is not recorded as abstained.
    const idk = { answer: "I don't know", answers: {}, sources: [], claims: [] as typeof one.claims };
    expect(ask(idk, 'agent', 'all_agree')).not.toHaveProperty('abstainedBelow');
  });
});
