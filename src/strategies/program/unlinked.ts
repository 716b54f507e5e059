import type { SandboxTable } from './sandbox-table';

const MAX_LISTED = 30;
const PREVIEW_CHARS = 70;

const preview = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
};

const listed = (keys: string[], show: (key: string) => string) => [
  ...keys.slice(0, MAX_LISTED).map((k) => `  ${JSON.stringify(k)}${show(k)}`),
  ...(keys.length > MAX_LISTED ? [`  (${keys.length - MAX_LISTED} more)`] : []),
];

/**
 * Passages and images that no cell links to (MultiModalQA gives a question texts and pictures beside its table).
 * The program can only reach them by key, so the listing names each key: `extract_info("<key>", target)`.
 */
export const unlinkedDocuments = (table: SandboxTable, passages: Record<string, string>, images: Record<string, string>): string[] => {
  const linked = new Set(table.rows.flatMap((row) => table.columns.flatMap((c) => row[c].links)));
  const passageKeys = Object.keys(passages).filter((k) => !linked.has(k));
  const imageKeys = Object.keys(images).filter((k) => !linked.has(k));
  return [
    ...(passageKeys.length ? ['Passages no cell links to (read one with extract_info("<key>", target)):', ...listed(passageKeys, (k) => `: ${preview(passages[k])}`)] : []),
    ...(imageKeys.length ? ['Images no cell links to (read one with extract_info("<key>", target)):', ...listed(imageKeys, () => '')] : []),
  ];
};
