export { processPage, processPageAsync, DEFAULT_PAGE_OPTIONS, type PageOptions, type ProcessedPage } from './page';
export { splitSentences } from './sentences';
export { chunkSentences, maxChunkChars, DEFAULT_CHUNK_OPTIONS, type ChunkOptions } from './chunk';
export { decodeHtml, sniffCharset } from './decode';
export type { MarkdownTable } from './table';
export { bm25Scores, bm25Tokens, rankBm25, type Bm25Options } from './bm25';
export { rankTexts, rankTables, DEFAULT_RANK_OPTIONS, type Ranked, type RankOptions } from './rank';
export { isQuestionSentence } from './question';
export { renderedText, renderedTextAsync } from './rendered-text';
