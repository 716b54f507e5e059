export { bundledLibraryNames, loadLibrary, parseProcess, renderProcess, ProcessParseError } from './library';
export { restrictLibrary, restrictProcess } from './restrict';
export type { ProcessStep, SolutionProcess } from './library';
export { selectExamples, selectIndicesWithQuality, SELECTION_MODES } from './select';
export type { SelectableExample, SelectionMode, SelectExamplesInput } from './select';
export { encodeToolSequence, TOOL_SYMBOLS } from './levenshtein';
