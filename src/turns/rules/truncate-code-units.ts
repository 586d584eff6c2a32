/** A string cut to a limit, and whether it was cut. */
export interface Truncated {
  text: string;
  truncated: boolean;
}

/**
 * Cuts `text` to at most `limit` UTF-16 code units. A cut that would leave the
 * high half of a surrogate pair at the end is made one unit earlier, so the
 * result is always well-formed where the input was.
 *
 * @publicApi
 */
export function truncateCodeUnits(text: string, limit: number): Truncated {
  if (text.length <= limit) return { text, truncated: false };
  let end = Math.max(0, limit);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}
