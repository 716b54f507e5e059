import { truncate } from './clean-text';
import { isQuestionSentence } from './question';

export interface ChunkOptions {
  /** Longer sentences are cut to this many characters. */
  maxSentenceChars: number;
  /** A question sentence takes the sentences after it while the chunk stays within this length. */
  questionChunkChars: number;
  /** Other sentences are grouped this many at a time. */
  groupSize: number;
  /** Questions are found by question words too, not only by a trailing "?" (the paper's Appendix B). */
  questionWords: boolean;
}

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { maxSentenceChars: 400, questionChunkChars: 600, groupSize: 3, questionWords: true };

/** The longest chunk these options can produce, for callers that budget prompt space. */
export const maxChunkChars = (o: Pick<ChunkOptions, 'groupSize' | 'maxSentenceChars' | 'questionChunkChars'>): number =>
  Math.max(o.groupSize * (o.maxSentenceChars + 1), o.questionChunkChars + o.maxSentenceChars + 1);

const endsWithQuestionMark = (sentence: string) => /\?["'”’)\]]*$/.test(sentence);

/**
 * Sentences → retrieval chunks. A question on a page (an FAQ heading, "How tall is it?") is kept with
 * the text that answers it; everything else goes in fixed groups, so chunk sizes stay predictable.
 * @example chunkSentences(['A.', 'B.', 'C.', 'D.']) // ['A. B. C.', 'D.']
 */
export const chunkSentences = (sentences: string[], options: Partial<ChunkOptions> = {}): string[] => {
  const o = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  const groupSize = Math.max(1, Math.floor(o.groupSize));
  const isQuestion = o.questionWords ? isQuestionSentence : endsWithQuestionMark;
  const chunks: string[] = [];
  let group: string[] = [];
  const closeGroup = () => {
    if (group.length) chunks.push(group.join(' '));
    group = [];
  };
  for (let i = 0; i < sentences.length; i++) {
    const s = truncate(sentences[i], o.maxSentenceChars);
    if (!s) continue;
    if (isQuestion(s)) {
      closeGroup();
      let text = s;
      while (i + 1 < sentences.length) {
        const next = truncate(sentences[i + 1], o.maxSentenceChars);
        if (text.length + 1 + next.length > o.questionChunkChars || isQuestion(next)) break;
        text += ` ${next}`;
        i++;
      }
      chunks.push(text);
      continue;
    }
    group.push(s);
    if (group.length === groupSize) closeGroup();
  }
  closeGroup();
  return chunks;
};
