// Dates as tables and passages write them, compared at the precision both sides share.

import { monthNumber } from '../../text/words';

export interface PartialDate {
  y: number;
  m?: number;
  d?: number;
}

const month = monthNumber;

/** A written date with at least a month, or an ISO date; a bare year is not a date here (it reads as a number). */
export const parseDate = (input: string): PartialDate | undefined => {
  const text = input.trim().replace(/,/g, ' ').replace(/\s+/g, ' ');
  let m = /^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?$/.exec(text);
  if (m) return { y: +m[1], m: +m[2], ...(m[3] ? { d: +m[3] } : {}) };
  m = /^(\d{1,2})(?:st|nd|rd|th)? ([A-Za-z.]+) (\d{4})$/.exec(text);
  if (m && month(m[2])) return { y: +m[3], m: month(m[2]), d: +m[1] };
  m = /^([A-Za-z.]+) (\d{1,2})(?:st|nd|rd|th)? (\d{4})$/.exec(text);
  if (m && month(m[1])) return { y: +m[3], m: month(m[1]), d: +m[2] };
  m = /^([A-Za-z.]+) (\d{4})$/.exec(text);
  if (m && month(m[1])) return { y: +m[2], m: month(m[1]) };
  return undefined;
};

/** Negative, zero or positive, comparing only the parts both dates have. */
export const compareDates = (a: PartialDate, b: PartialDate): number => {
  if (a.y !== b.y) return a.y - b.y;
  if (a.m === undefined || b.m === undefined) return 0;
  if (a.m !== b.m) return a.m - b.m;
  if (a.d === undefined || b.d === undefined) return 0;
  return a.d - b.d;
};
