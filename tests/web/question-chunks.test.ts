import { describe, expect, it } from 'vitest';
import { chunkSentences, isQuestionSentence, processPage } from '../../src/web';

describe('question chunking (Appendix B: question words, not only "?")', () => {
  it('recognises questions by their words as well as by a question mark', () => {
    for (const q of ['How tall is it?', 'How to install Office 2019', 'What is the price of a licence', 'Is Office 2019 free to use', 'Where can I buy it']) {
      expect(isQuestionSentence(q), q).toBe(true);
    }
    for (const s of ['When he was ten, he moved to Oslo.', 'Which is why it failed.', 'How many languages does it support.', 'Office 2019 was released in 2018.', 'Is', 'Will Smith starred in it']) {
      expect(isQuestionSentence(s), s).toBe(false);
    }
  });

  it('keeps an FAQ heading without a question mark together with its answer', () => {
    const sentences = ['Office 2019 is a suite.', 'It runs on Windows.', 'How many languages does Office 2019 support', 'It is available in 102 languages.', 'Older versions had fewer.', 'Prices vary.'];
    expect(chunkSentences(sentences, { groupSize: 3 })).toEqual([
      'Office 2019 is a suite. It runs on Windows.',
      'How many languages does Office 2019 support It is available in 102 languages. Older versions had fewer. Prices vary.',
    ]);
    // With question detection by "?" only, the heading is just another sentence in a fixed group.
    expect(chunkSentences(sentences, { groupSize: 3, questionWords: false })[0]).toBe('Office 2019 is a suite. It runs on Windows. How many languages does Office 2019 support');
  });

  it('applies to whole pages: an FAQ page yields one chunk per question with its answer', () => {
    const page = processPage(`<html><body><h1>Office FAQ</h1>
      <h2>What is Office 2019</h2><p>Office 2019 is a one-time purchase of Word, Excel and PowerPoint.</p>
      <h2>How to activate Office 2019</h2><p>Sign in with your account. Then enter the product key.</p></body></html>`);
    expect(page.chunks).toContain('What is Office 2019 Office 2019 is a one-time purchase of Word, Excel and PowerPoint.');
    expect(page.chunks).toContain('How to activate Office 2019 Sign in with your account. Then enter the product key.');
  });
});
