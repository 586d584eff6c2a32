const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const MONTH = `(${MONTHS.join('|')})`;

/** `Sun, 06 Nov 1994 08:49:37 GMT`: the form senders must send. */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** `Sunday, 06-Nov-94 08:49:37 GMT`: obsolete, recipients must still read it. */
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** `Sun Nov  6 08:49:37 1994`: ANSI C's asctime(), obsolete too. */
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/** Epoch ms of a UTC date and time, or undefined when it does not exist (31 Feb, 25:00; a leap second is read as :59). */
function utc(year: number, month: string, day: number, hour: number, minute: number, second: number): number | undefined {
  const m = MONTHS.indexOf(month);
  const ms = Date.UTC(year, m, day, hour, minute, Math.min(second, 59));
  const date = new Date(ms);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== m || date.getUTCDate() !== day) return undefined;
  return hour > 23 || minute > 59 || second > 60 ? undefined : ms;
}

/**
 * An HTTP-date (RFC 9110 §5.6.7) as epoch ms: IMF-fixdate, and the obsolete
 * rfc850 and asctime forms a recipient must accept (a two-digit year more
 * than 50 years ahead of `now` is of the century before). Undefined for
 * anything else — unlike `Date.parse`, which reads `-1` as a year.
 */
export function parseHttpDate(text: string, now: number): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match) {
    const [, day, month, year, hh, mm, ss] = match;
    return utc(Number(year), month!, Number(day), Number(hh), Number(mm), Number(ss));
  }
  match = RFC850_DATE.exec(text);
  if (match) {
    const [, day, month, yy, hh, mm, ss] = match;
    const thisYear = new Date(now).getUTCFullYear();
    let year = thisYear - (thisYear % 100) + Number(yy);
    if (year > thisYear + 50) year -= 100;
    return utc(year, month!, Number(day), Number(hh), Number(mm), Number(ss));
  }
  match = ASCTIME_DATE.exec(text);
  if (match) {
    const [, month, day, hh, mm, ss, year] = match;
    return utc(Number(year), month!, Number(day!.trim()), Number(hh), Number(mm), Number(ss));
  }
  return undefined;
}
