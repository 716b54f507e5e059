import { describe, expect, it } from 'vitest';
import { answersAsAsked } from '../../src/engine/answer-policy';
import { attribute, attributedAnswer, evidenceBook, type EvidenceBook } from '../../src/engine/attribution/attribute';
import { stepAttribution } from '../../src/engine/attribution/step-attribution';
import type { Claim } from '../../src/engine/types';
import { requestKey, type EvidenceRecord, type RecordedRequest } from '../../src/evidence/recording';
import type { Page } from '../../src/evidence/types';

const record = (request: RecordedRequest, body: unknown): EvidenceRecord => ({ key: requestKey(request), request, response: { body } });
const page = (title: string, text: string): Page => ({ title, url: `https://en.wikipedia.org/wiki/${title.replace(/ /g, '_')}`, sections: [{ heading: '', text }], tables: [] });
const zemeckis = record({ source: 'evidence', kind: 'static', method: 'page', args: ['Robert Zemeckis'] }, page('Robert Zemeckis', 'He was born in Chicago, Illinois.'));
const chicago = record({ source: 'evidence', kind: 'static', method: 'page', args: ['Chicago'] }, page('Chicago', 'Chicago is the birthplace of Robert Zemeckis.'));
/** A run that asked for true/false answers, as its options read once parsed. */
const options = { abstain: false, booleanStyle: 'true-false' } as const;
/** What the run asks: the records about Robert Zemeckis are about it (issue 40). */
const QUESTION = 'Where was Robert Zemeckis born?';

/** A book over `records` that counts the documents looked up in it: what citing claims costs. */
const countingBook = (records: EvidenceRecord[]) => {
  const inner = evidenceBook(records, undefined, QUESTION);
  const counter = { lookups: 0, reads: 0 };
  const read = (): EvidenceBook => {
    counter.reads++;
    return { ...inner, document: (key) => (counter.lookups++, inner.document(key)) };
  };
  return { counter, read };
};

describe("a step's attribution", () => {
  it('cites the claims a strategy verified once, not again when its answer is stored, with the same verdict', () => {
    const claims: Claim[] = [
      { source: 'wikipedia', answer: 'Chicago', keys: [zemeckis.key] },
      { source: 'wikidata', answer: 'Chicago', keys: [chicago.key] },
    ];
    const { counter, read } = countingBook([zemeckis, chicago]);
    const step = stepAttribution(read);
    const asked = step.attribute(claims);
    expect(asked).toEqual(attribute(claims, evidenceBook([zemeckis, chicago], undefined, QUESTION)));
    expect(asked.confidence).toBe('all_agree');
    const afterAsking = counter.lookups;
    expect(afterAsking).toBeGreaterThan(0);
    const draft = { answer: 'Chicago', answers: { wikipedia: 'Chicago', wikidata: 'Chicago' }, sources: [], claims };
    const stored = step.answer(draft);
    // The verdict on the answer reads a verified record to see that it holds the answer; the claims are not cited again.
    expect(counter.lookups - afterAsking).toBeLessThan(afterAsking);
    expect(stored).toEqual(attributedAnswer(draft, evidenceBook([zemeckis, chicago], undefined, QUESTION)));
    expect(counter.reads).toBe(1);
  });

  it('reads the evidence again, and cites again, once the run has stored more', () => {
    const records = [zemeckis];
    let version = 0;
    let reads = 0;
    const step = stepAttribution(() => (reads++, evidenceBook(records, undefined, QUESTION)), () => version);
    const claims: Claim[] = [{ source: 'wikidata', answer: 'Chicago', keys: [chicago.key] }];
    expect(step.attribute(claims).confidence).toBe('none');
    expect(step.attribute(claims).confidence).toBe('none');
    expect(reads).toBe(1);
    records.push(chicago);
    version++;
    // The same claims, cited against the record stored since: it verifies them.
    expect(step.attribute(claims).confidence).toBe('one_source');
    expect(reads).toBe(2);
  });

  it('attributes the answer, and the run\'s policy then words it as the request asks', () => {
    const step = stepAttribution(() => evidenceBook([]));
    const [event] = answersAsAsked(step.events([{ type: 'answer', data: { answer: 'yes', answers: { parametric: 'yes' }, sources: [], claims: [] } }]), options);
    expect(step.events([{ type: 'answer', data: { answer: 'yes', answers: {}, sources: [], claims: [] } }])[0]).toMatchObject({ data: { answer: 'yes' } });
    expect(event).toMatchObject({ type: 'answer', data: { answer: 'True', answers: { parametric: 'True' }, confidence: 'none' } });
  });
});
