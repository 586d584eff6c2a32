/**
 * The event id a `Last-Event-ID` header resumes after: decimal digits naming a
 * safe integer. Anything else (empty, signed, fractional, too large to count
 * exactly) is treated as absent, so the stream starts from the newest event.
 */
export function parseLastEventId(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d{1,16}$/.test(header)) return undefined;
  const id = Number(header);
  return Number.isSafeInteger(id) ? id : undefined;
}
