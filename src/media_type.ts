/**
 * The media type a `Content-Type` names, as fetch extracts it. Part of the
 * live bodies' module, loaded on first use: only an SSE read asks.
 *
 * @module
 */

const MEDIA_TYPE = /^[!#$%&'*+\-.^_`|~0-9a-z]+\/[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/**
 * The essence (`type/subtype`, lower-case) of a `Content-Type`, as fetch
 * extracts it: a header given twice (by a framework and a proxy, say) reads
 * as the values comma-joined, of which the last that is a media type counts,
 * as `EventSource` takes it. Commas inside a quoted parameter do not split.
 */
export function essenceOf(declared: string): string {
  let found: string | undefined;
  let start = 0;
  let inQuotes = false;
  for (let at = 0; at <= declared.length; at++) {
    const char = declared[at];
    if (inQuotes && char === "\\" && at + 1 < declared.length) at++;
    else if (char === '"') inQuotes = !inQuotes;
    else if (at === declared.length || (char === "," && !inQuotes)) {
      const value = declared.slice(start, at);
      const end = value.indexOf(";");
      const essence = (end === -1 ? value : value.slice(0, end)).trim()
        .toLowerCase();
      if (MEDIA_TYPE.test(essence) && essence !== "*/*") found = essence;
      start = at + 1;
    }
  }
  return found ?? declared.split(";", 1)[0]!.trim().toLowerCase();
}
