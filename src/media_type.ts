/**
 * The media type a `Content-Type` names, as fetch extracts it: its essence
 * for an SSE read, and the type of a `"blob"`. Part of the module loaded on
 * first use by those response types.
 *
 * @module
 */

/** An HTTP token: a media type's type, subtype or parameter name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/i;

/** What a parameter value may hold, quoted or not. */
const QUOTABLE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;

/** HTTP white space at either end, and at the end. */
const EDGES = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const TRAILING = /[\t\n\r ]+$/;

interface MimeType {
  essence: string;
  parameters: Map<string, string>;
}

/**
 * The essence (`type/subtype`, lower-case) of a `Content-Type`, as fetch
 * extracts it: a header given twice (by a framework and a proxy, say) reads
 * as the values comma-joined, of which the last that is a media type counts,
 * as `EventSource` takes it. Commas inside a quoted parameter do not split.
 */
export function essenceOf(declared: string): string {
  let found: string | undefined;
  for (const value of splitValues(declared)) {
    const parsed = parseMimeType(value);
    if (parsed !== undefined && parsed.essence !== "*/*") {
      found = parsed.essence;
    }
  }
  return found ?? declared.split(";", 1)[0]!.trim().toLowerCase();
}

/**
 * The type of the blob of a body whose `Content-Type` is `declared`, as
 * fetch extracts and serialises it: a header given twice reads as the
 * values comma-joined, of which the last that is a media type counts
 * (keeping the charset of an earlier one of the same essence); type,
 * subtype and parameter names in lower case; `""` when no value is a media
 * type.
 *
 * @example
 * ```ts ignore
 * blobTypeOf('Text/Plain; Charset="UTF-8"'); // 'text/plain;charset=UTF-8'
 * blobTypeOf("text/plain, application/json"); // "application/json"
 * blobTypeOf("garbage"); // ""
 * ```
 */
export function blobTypeOf(declared: string): string {
  let found: MimeType | undefined;
  let charset: string | undefined;
  for (const value of splitValues(declared)) {
    const parsed = parseMimeType(value);
    if (parsed === undefined || parsed.essence === "*/*") continue;
    const own = parsed.parameters.get("charset");
    if (parsed.essence !== found?.essence) charset = own;
    else if (own === undefined && charset !== undefined) {
      parsed.parameters.set("charset", charset);
    }
    found = parsed;
  }
  return found === undefined ? "" : serialise(found);
}

/** The values of a header, split at commas outside quotes. */
function splitValues(declared: string): string[] {
  const values: string[] = [];
  let start = 0;
  let inQuotes = false;
  for (let at = 0; at <= declared.length; at++) {
    const char = declared[at];
    if (inQuotes && char === "\\" && at + 1 < declared.length) at++;
    else if (char === '"') inQuotes = !inQuotes;
    else if (at === declared.length || (char === "," && !inQuotes)) {
      values.push(declared.slice(start, at).replace(EDGES, ""));
      start = at + 1;
    }
  }
  return values;
}

/** A media type as the MIME Sniffing standard parses it, if it is one. */
function parseMimeType(value: string): MimeType | undefined {
  const end = value.indexOf(";");
  const head = end === -1 ? value : value.slice(0, end);
  const slash = head.indexOf("/");
  const type = head.slice(0, slash);
  const subtype = head.slice(slash + 1).replace(TRAILING, "");
  if (slash === -1 || !TOKEN.test(type) || !TOKEN.test(subtype)) {
    return undefined;
  }
  const parameters = new Map<string, string>();
  let at = end === -1 ? value.length : end;
  while (at < value.length) {
    at++; // The ";".
    while (/[\t\n\r ]/.test(value[at] ?? "")) at++;
    let name = "";
    while (at < value.length && value[at] !== ";" && value[at] !== "=") {
      name += value[at++];
    }
    if (value[at] !== "=") continue;
    at++;
    let parameter = "";
    if (value[at] === '"') {
      for (at++; at < value.length && value[at] !== '"'; at++) {
        if (value[at] === "\\" && at + 1 < value.length) at++;
        parameter += value[at];
      }
      while (at < value.length && value[at] !== ";") at++;
    } else {
      const next = value.indexOf(";", at);
      const stop = next === -1 ? value.length : next;
      parameter = value.slice(at, stop).replace(TRAILING, "");
      at = stop;
      if (parameter === "") continue;
    }
    name = name.toLowerCase();
    if (
      TOKEN.test(name) && QUOTABLE.test(parameter) && !parameters.has(name)
    ) parameters.set(name, parameter);
  }
  return { essence: `${type}/${subtype}`.toLowerCase(), parameters };
}

function serialise({ essence, parameters }: MimeType): string {
  let text = essence;
  for (const [name, value] of parameters) {
    const quoted = value === "" || !TOKEN.test(value);
    text += `;${name}=${
      quoted ? `"${value.replace(/["\\]/g, "\\$&")}"` : value
    }`;
  }
  return text;
}
