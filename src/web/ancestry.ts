import type { Ancestry, ElementInfo, Part } from './css-selector';

/**
 * The open elements above the one being matched against a page's selectors (css-selector.ts), kept as elements open
 * and close, with counts that let a selector whose ancestors are not all open be refused without walking them.
 */

type Counted = 'class' | 'id' | 'tag';

/** How many times an element names this class (`class="a a"` twice), lower-case id or tag. */
const timesKnownBy = (el: ElementInfo, kind: Counted, name: string): number => {
  if (kind === 'tag') return el.tag === name ? 1 : 0;
  if (kind === 'id') return el.id?.toLowerCase() === name ? 1 : 0;
  let n = 0;
  for (const c of el.classes) if (c === name) n++;
  return n;
};

/**
 * An ancestry kept up to date as elements open and close. It counts only the parts some selector has asked about
 * (most pages ask about none), each counted from the elements open when it is first asked about.
 */
export const ancestry = (): Ancestry & { push(el: ElementInfo): void; pop(): void } => {
  const list: ElementInfo[] = [];
  const counts: Record<Counted, Map<string, number>> = { class: new Map(), id: new Map(), tag: new Map() };
  const bump = (counted: Map<string, number>, key: string, by: number) => {
    const n = counted.get(key);
    if (n !== undefined) counted.set(key, n + by);
  };
  const count = (el: ElementInfo, by: number) => {
    if (counts.tag.size) bump(counts.tag, el.tag, by);
    if (el.id && counts.id.size) bump(counts.id, el.id.toLowerCase(), by);
    if (counts.class.size) for (const c of el.classes) bump(counts.class, c, by);
  };
  return {
    list,
    has(part: Part): boolean {
      if (part.kind === 'any' || part.kind === 'attr') return true;
      const counted = part.kind === 'class' ? counts.class : part.kind === 'id' ? counts.id : counts.tag;
      let n = counted.get(part.name);
      if (n === undefined) {
        n = 0;
        for (const el of list) n += timesKnownBy(el, part.kind, part.name);
        counted.set(part.name, n);
      }
      return n > 0;
    },
    push(el: ElementInfo) {
      list.push(el);
      count(el, 1);
    },
    pop() {
      const el = list.pop();
      if (el) count(el, -1);
    },
  };
};
