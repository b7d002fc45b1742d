/**
 * `Retry-After` as RFC 9110 writes it: delay-seconds, or an HTTP-date in one
 * of its three forms.
 *
 * @module
 */

/**
 * RFC 9110's three HTTP-date forms, each anchored: IMF-fixdate
 * (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
 * (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
 * `Date.parse` alone reads `"1.5"`, `"2024"` or a JavaScript date string,
 * differently on each runtime, and takes the year 0049 for 2049.
 */
const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day";
const MONTH = "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "(\\d\\d):(\\d\\d):(\\d\\d)";
const IMF_FIXDATE = new RegExp(
  `^${DAY}, (\\d\\d) ${MONTH} (\\d{4}) ${TIME} GMT$`,
);
const RFC_850 = new RegExp(
  `^${LONG_DAY}, (\\d\\d)-${MONTH}-(\\d\\d) ${TIME} GMT$`,
);
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);
const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";

/**
 * Milliseconds a `Retry-After` value asks for: delay-seconds (digits only) or
 * an HTTP-date in one of RFC 9110's three forms, relative to `now`.
 * `undefined` when absent or anything else, so the backoff decides.
 *
 * @example
 * ```ts ignore
 * parseRetryAfter("120", 0); // 120000
 * parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("Wed, 21 Oct 2015 07:27:00 GMT")); // 60000
 * parseRetryAfter("Wed Oct 21 2015 07:28:00 GMT", 0); // undefined: not an HTTP-date
 * ```
 */
export function parseRetryAfter(
  value: string | null,
  now: number,
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = httpDate(text, now);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** The time of an HTTP-date in one of the three forms; `NaN` for any other. */
function httpDate(text: string, now: number): number {
  let match = IMF_FIXDATE.exec(text);
  if (match !== null) {
    return utcDate(Number(match[3]), match[2]!, match[1]!, match.slice(4));
  }
  match = RFC_850.exec(text);
  if (match !== null) {
    const [day, month, year] = [match[1]!, match[2]!, Number(match[3])];
    return rfc850Date(year, month, day, match.slice(4), now);
  }
  // asctime has no zone, and means GMT.
  match = ASCTIME.exec(text);
  if (match === null) return NaN;
  return utcDate(Number(match[6]), match[1]!, match[2]!, match.slice(3, 6));
}

/**
 * The time of a date in UTC, the year as written; `NaN` for a day or a time
 * that does not exist (`31 Feb`, `24:00:00`). A second of 60 is a leap
 * second.
 */
function utcDate(
  year: number,
  month: string,
  day: string,
  time: string[],
): number {
  const [hour, minute, second] = time.map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, MONTHS.indexOf(month) / 3, Number(day));
  if (date.getUTCDate() !== Number(day)) return NaN;
  if (hour > 23 || minute > 59 || second > 60) return NaN;
  return date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
}

/**
 * An RFC 850 date, whose year has two digits: the latest year with those
 * digits that puts it at most 50 years after `now` (RFC 9110, 5.6.7: one
 * more than 50 years ahead is the most recent such year in the past).
 */
function rfc850Date(
  yy: number,
  month: string,
  day: string,
  time: string[],
  now: number,
): number {
  const horizon = new Date(now);
  const thisYear = horizon.getUTCFullYear();
  horizon.setUTCFullYear(thisYear + 50);
  const ahead = thisYear - (thisYear % 100) + 100 + yy;
  for (let year = ahead; year >= ahead - 200; year -= 100) {
    const date = utcDate(year, month, day, time);
    if (date <= horizon.getTime()) return date;
  }
  return NaN;
}
