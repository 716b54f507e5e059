import { describe, expect, it } from 'vitest';
import { normaliseAnswer, sameAnswer } from '../../src/text/answers';
import { sourcesOf, wikidataAnswer, wikipediaAnswer, type Turn } from '../../src/strategies/hqa/trace';

describe('answer normalisation', () => {
  it.each([
    ['The Beatles', 'beatles.'],
    ['1,000', '1000'],
    ['eleven', '11'],
    ['24 August 2011', '2011-08-24'],
    ['August 24, 2011', '2011-08-24T00:00:00Z'],
    ['Inception, Interstellar and The Dark Knight', 'the dark knight; Inception; Interstellar'],
    ['Luis Suárez', 'luis suarez'],
    ['Yes', 'yes (true)'],
  ])('%s equals %s', (a, b) => {
    expect(normaliseAnswer(a)).toBe(normaliseAnswer(b));
  });

  it('keeps different answers apart', () => {
    expect(normaliseAnswer('1000')).not.toBe(normaliseAnswer('100'));
    expect(normaliseAnswer('2011-08-24')).not.toBe(normaliseAnswer('2011-08-25'));
    expect(normaliseAnswer('Inception, Interstellar')).not.toBe(normaliseAnswer('Inception'));
  });

  it('matches a sentence from a page against a label, but not yes against no', () => {
    expect(sameAnswer('Robert Zemeckis was born in Chicago, Illinois.', 'Chicago')).toBe(true);
    expect(sameAnswer('Robert Zemeckis was born in Chicago, Illinois.', 'Los Angeles')).toBe(false);
    expect(sameAnswer('Yes, he received it in 2016.', 'yes')).toBe(true);
    expect(sameAnswer('No', 'yes')).toBe(false);
  });
});

describe('source answers from a trace', () => {
  const turns: Turn[] = [
    { tool: 'read', input: 'Forrest Gump', observation: 'It was directed by Robert Zemeckis. (source: Forrest Gump, https://en.wikipedia.org/wiki/Forrest_Gump)' },
    { tool: 'getWikidataID', input: 'Robert Zemeckis', observation: 'Robert Zemeckis: Q187364' },
    { tool: 'generateQuery', input: 'Where was he born? # Q187364', observation: 'SELECT ?place WHERE { wd:Q187364 wdt:P19 ?place . }' },
    { tool: 'runQuery', input: 'SELECT …', observation: '?place\nQ1297 (Chicago)\n(1 row)' },
    { tool: 'runQuery', input: 'SELECT … bad', observation: 'No results. Check the ids.' },
  ];

  it('takes the last read answer for Wikipedia and the last non-empty query for Wikidata', () => {
    expect(wikipediaAnswer(turns)).toBe('It was directed by Robert Zemeckis.');
    expect(wikidataAnswer(turns)).toBe('Chicago');
  });

  it('reads ASK results, counts and label columns', () => {
    expect(wikidataAnswer([{ tool: 'runQuery', observation: 'ASK result: no (false)' }])).toBe('no');
    expect(wikidataAnswer([{ tool: 'runQuery', observation: '?count\n3\n(1 row)' }])).toBe('3');
    expect(
      wikidataAnswer([{ tool: 'runQuery', observation: '?film | ?minutes\nQ483941 (Schindler\'s List) | 195\nQ44578 (Titanic) | 194\n(2 rows)' }]),
    ).toBe("Schindler's List, Titanic");
    expect(wikidataAnswer([{ tool: 'getLabel', observation: 'Q5: human — x' }, { tool: 'runQuery', observation: '?c\nQ5\n(1 row)' }])).toBe('human');
  });

  it('lists pages read and entities used, with URLs', () => {
    expect(sourcesOf(turns)).toEqual([
      { title: 'Forrest Gump', url: 'https://en.wikipedia.org/wiki/Forrest_Gump', kind: 'wikipedia' },
      { title: 'Q187364 (Robert Zemeckis)', url: 'https://www.wikidata.org/wiki/Q187364', kind: 'wikidata' },
      { title: 'Q1297 (Chicago)', url: 'https://www.wikidata.org/wiki/Q1297', kind: 'wikidata' },
    ]);
  });
});
