import { hiddenReason, type SkipRule } from './visibility';

/**
 * Which elements are page furniture rather than content, or not seen at all (visibility.ts). Decided per element
 * from its tag, its attributes and the page's own hiding rules read so far.
 */

/** Content never lives inside these. */
export const SKIP_TAGS = new Set([
  'script', 'style', 'noscript', 'template', 'head', 'nav', 'header', 'footer', 'aside', 'button', 'form',
  'select', 'option', 'textarea', 'label', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'video',
  'audio', 'picture', 'map', 'dialog', 'menu',
]);

/** Landmark roles that mark furniture whatever the tag. */
const SKIP_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'menu', 'menubar', 'dialog', 'alertdialog', 'search', 'toolbar']);

/**
 * Class/id words of cookie banners, menus, share bars, ads and site chrome. Matched against whole
 * `-`/`_` separated segments ("cookie-banner", "site_nav"), so "navigation-free" prose classes are rare hits.
 */
const FURNITURE_WORDS = new Set([
  'cookie', 'cookies', 'consent', 'gdpr', 'onetrust', 'cmp', 'newsletter', 'subscribe', 'subscription', 'share',
  'sharing', 'social', 'breadcrumb', 'breadcrumbs', 'advert', 'advertisement', 'ad', 'ads', 'sponsored', 'promo',
  'popup', 'modal', 'navbox', 'navbar', 'nav', 'menu', 'sidebar', 'toolbar', 'skip', 'noprint', 'editsection',
  'reference', 'references', 'reflist', 'comment', 'comments', 'related', 'footer', 'header', 'banner',
  'pagination', 'signup', 'login', 'paywall', 'toc', 'catlinks', 'printfooter', 'sitenotice',
]);

// Wrappers whose class lists describe the page layout ("page-with-sidebar"), not furniture.
const NEVER_BY_CLASS = new Set(['html', 'body', 'main', 'article']);

export type SkipReason = 'tag' | 'hidden' | 'role' | 'class' | undefined;

// One regex over the raw attribute: a furniture word as a whole segment between spaces, '-' or '_'.
const FURNITURE_RE = new RegExp(`(?:^|[\\s_-])(?:${[...FURNITURE_WORDS].join('|')})(?=$|[\\s_-])`, 'i');

const hasFurnitureWord = (value: string): boolean => FURNITURE_RE.test(value);

/**
 * Why this element's whole subtree is dropped, or undefined to keep it. `aria-hidden` text is kept: a sighted reader
 * sees it, and this extraction is the one text both the model and the verification read (rendered-text.ts).
 */
export const skipReason = (
  name: string,
  attribs: Record<string, string>,
  useClassHeuristics: boolean,
  byStylesheet = false,
  classes?: string[],
  furniture: (value: string) => boolean = hasFurnitureWord,
): SkipReason => {
  if (SKIP_TAGS.has(name)) return 'tag';
  if (hiddenReason(name, attribs, byStylesheet, classes)) return 'hidden';
  const role = attribs.role;
  if (role && SKIP_ROLES.has(role.toLowerCase())) return 'role';
  if (useClassHeuristics && !NEVER_BY_CLASS.has(name)) {
    const cls = attribs.class;
    const id = attribs.id;
    if ((cls && furniture(cls)) || (id && hasFurnitureWord(id))) return 'class';
  }
  return undefined;
};

/** Distinct class attributes judged once per page: a page repeats a few (3,425 on the 25 CRAG pages, for 16,481). */
const MAX_JUDGED_CLASSES = 4096;

/** `skipReason` for the elements of one page, each distinct class attribute read for furniture words once. */
export const pageSkipRule = (useClassHeuristics: boolean): SkipRule => {
  const judged = new Map<string, boolean>();
  const furniture = (value: string): boolean => {
    let found = judged.get(value);
    if (found === undefined) {
      found = hasFurnitureWord(value);
      if (judged.size < MAX_JUDGED_CLASSES) judged.set(value, found);
    }
    return found;
  };
  return (name, attribs, byStylesheet, classes) => skipReason(name, attribs, useClassHeuristics, byStylesheet, classes, furniture);
};
