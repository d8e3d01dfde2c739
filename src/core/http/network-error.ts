/**
 * A failed connection in words a person can act on. The runtime says only "Network connection
 * lost." whether nothing listened at the address or the connection dropped before an answer, so
 * the text names the place and both causes; any other message is kept as it is.
 */
export function networkErrorText(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!/network connection lost/i.test(message)) return `Network error: ${message}`;
  let where = "the address";
  try {
    where = new URL(url).origin;
  } catch {
    /* an unparsable URL never got this far; keep the generic words */
  }
  return `Network error: no connection to ${where}: refused (is anything listening there?) or dropped before an answer.`;
}
