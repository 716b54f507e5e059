// Appendix B of the CRAG hybrid-RAG paper keeps a question found on a page (an FAQ entry) together with the text
// that answers it. Pages often drop the question mark in headings ("How to renew a passport"), so question words
// count too — but only without closing punctuation, where a declarative reading is unlikely ("When he was ten, he
// moved." and "Which is why it failed." stay statements).

const QUESTION_WORDS = new Set(['what', 'who', 'whom', 'whose', 'which', 'when', 'where', 'why', 'how']);

/** Sentences that start like a question and need no question mark to be one ("Is it free", "Does it work on Mac"). */
const AUXILIARY_STARTS = new Set(['is', 'are', 'was', 'were', 'do', 'does', 'did', 'can', 'could', 'should', 'would', 'has', 'have']);

const TRAILING_QUESTION_MARK = /\?["'”’)\]]*$/;
const TERMINAL_PUNCTUATION = /[.!…:;]["'”’)\]]*$/;

/**
 * @example isQuestionSentence('How tall is it?') === true
 * @example isQuestionSentence('How to install Office 2019') === true
 * @example isQuestionSentence('When he was ten, he moved to Oslo.') === false
 */
export const isQuestionSentence = (sentence: string): boolean => {
  const s = sentence.trim();
  if (!s) return false;
  if (TRAILING_QUESTION_MARK.test(s)) return true;
  if (TERMINAL_PUNCTUATION.test(s)) return false;
  const word = (s.toLowerCase().replace(/^["'“‘(\[]+/, '').split(/\s+/, 1)[0] ?? '').replace(/[^\p{L}']/gu, '');
  if (QUESTION_WORDS.has(word)) return true;
  // "Is it free" reads as a heading-style question; a one- or two-word fragment does not.
  return AUXILIARY_STARTS.has(word) && s.split(/\s+/).length >= 3;
};
