/**
 * `Retry-After` as RFC 9110 (section 10.2.3) defines it and nothing more: `delay-seconds` (one or more decimal digits)
 * or an `HTTP-date` (the IMF-fixdate every server sends today, or one of the two obsolete forms a recipient must still
 * read). `Number()` and `Date.parse()` accept far more — `0x10`, `0o7`, `0b11`, `1e1`, `Infinity`, `tomorrow`
 * in some engines — and each of those held a model for as long as its own reading said. A value of any other shape
 * is ignored (the caller then waits as it would without the header) and logged once per value.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const MONTH = `(${MONTHS.join('|')})`;

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(`^(${DAYS.join('|')}), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT` (obsolete) */
const RFC850_DATE = new RegExp(`^(${LONG_DAYS.join('|')}), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994` (obsolete: C's asctime) */
const ASCTIME_DATE = new RegExp(`^(${DAYS.join('|')}) ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

/**
 * The time an HTTP-date names, in epoch ms, or undefined when the text is not one (or names no real moment: 31 Feb,
 * 25:00, a weekday that does not match the date). A two-digit year more than 50 years ahead is read as the past
 * century, as RFC 9110 asks.
 */
export const parseHttpDate = (text: string, now = Date.now()): number | undefined => {
  let m = IMF_FIXDATE.exec(text);
  let parts: { day: string; dom: string; mon: string; year: number; h: string; min: string; s: string } | undefined;
  if (m) parts = { day: m[1]!, dom: m[2]!, mon: m[3]!, year: Number(m[4]), h: m[5]!, min: m[6]!, s: m[7]! };
  else if ((m = RFC850_DATE.exec(text))) {
    const century = Math.floor(new Date(now).getUTCFullYear() / 100) * 100;
    let year = century + Number(m[4]);
    if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
    parts = { day: DAYS[LONG_DAYS.indexOf(m[1]!)]!, dom: m[2]!, mon: m[3]!, year, h: m[5]!, min: m[6]!, s: m[7]! };
  } else if ((m = ASCTIME_DATE.exec(text))) parts = { day: m[1]!, mon: m[2]!, dom: m[3]!.trim(), h: m[4]!, min: m[5]!, s: m[6]!, year: Number(m[7]) };
  if (!parts) return undefined;
  const [month, dom, h, min, s] = [MONTHS.indexOf(parts.mon), Number(parts.dom), Number(parts.h), Number(parts.min), Number(parts.s)];
  // 60 is a leap second; Date rolls it into the next minute, which is as good as any reading of it.
  if (dom < 1 || h > 23 || min > 59 || s > 60) return undefined;
  const at = new Date(Date.UTC(parts.year, month, dom, h, min, s));
  if (at.getUTCDate() !== dom || DAYS[at.getUTCDay()] !== parts.day) return undefined;
  return at.getTime();
};

/** Values logged already: a server that repeats a bad header on every answer is reported once per value (a few at most). */
const reported = new Set<string>();

const reportIgnored = (value: string) => {
  const shown = value.slice(0, 80);
  if (reported.has(shown) || reported.size >= 50) return;
  reported.add(shown);
  console.warn(`ignored Retry-After ${JSON.stringify(shown)}: neither delay-seconds (digits) nor an HTTP date (RFC 9110)`);
};

/**
 * Retry-After in milliseconds from now (0 for a date in the past), or undefined when it is absent or malformed; a
 * malformed one is logged (`onIgnored` replaces the log).
 * @example parseRetryAfter('120') // 120000
 * @example parseRetryAfter('0x10') // undefined, and a warning in the log
 */
export const parseRetryAfter = (
  value: string | null | undefined,
  { now = Date.now(), onIgnored = reportIgnored }: { now?: number; onIgnored?: (value: string) => void } = {},
): number | undefined => {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (!text) return undefined;
  // 1*DIGIT: no sign, point, exponent or radix prefix. A run of digits too long for a number is "for ever", which the
  // callers cut to their own maximum.
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = parseHttpDate(text, now);
  if (date !== undefined) return Math.max(0, date - now);
  onIgnored(text);
  return undefined;
};
