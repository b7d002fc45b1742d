/**
 * The members of a `Response` that grab's bounds rely on, read as
 * `Response.prototype` defines them. A response that the platform's `fetch`
 * made may come back from a custom `fetch` or a hook with an own property,
 * or a subclass's override, in place of its headers, its body or its reads:
 * what grab reads of a platform response is still the platform's.
 *
 * @module
 */

import { iterableBody } from "./iterable_body.ts";

const PROTOTYPE = Response.prototype;

/**
 * `Response`'s own getter of `name`, which an own property or a subclass
 * cannot fake; a plain read where the runtime keeps it elsewhere. A Proxy
 * around a response passes it on Deno and Node (the getter reads through
 * the traps), so only the platform's own `fetch` is trusted fully.
 */
function getterOf<
  K extends
    | "type"
    | "url"
    | "headers"
    | "body"
    | "bodyUsed"
    | "statusText"
    | "redirected",
>(
  name: K,
): (this: Response) => Response[K] {
  const own = Object.getOwnPropertyDescriptor(PROTOTYPE, name)?.get;
  return own ?? function (this: Response) {
    return this[name];
  };
}

/** The response's own type, read by `Response`'s getter. */
export const RESPONSE_TYPE: (this: Response) => ResponseType = getterOf(
  "type",
);
/** The response's own URL, read by `Response`'s getter. */
export const RESPONSE_URL: (this: Response) => string = getterOf("url");

const HEADERS = getterOf("headers");
const STATUS_TEXT = getterOf("statusText");
const REDIRECTED = getterOf("redirected");
const BODY = getterOf("body");
const BODY_USED = getterOf("bodyUsed");
const TEXT = PROTOTYPE.text;
const ARRAY_BUFFER = PROTOTYPE.arrayBuffer;
// `bytes()` is recent (Node 22, Chrome 132); `arrayBuffer()` stands in.
const BYTES = (PROTOTYPE as { bytes?: (this: Response) => Promise<Uint8Array> })
  .bytes;

/**
 * True when a response's `Content-Encoding` may be hidden: a browser shows a
 * cross-origin answer's (type `"cors"`) only when the server exposes it,
 * while its `Content-Length` (the compressed size) is always shown.
 */
export function codingHidden(response: Response): boolean {
  try {
    return RESPONSE_TYPE.call(response) === "cors";
  } catch {
    // Not a Response: response-like, whose headers hide nothing.
    return false;
  }
}

/** The response's headers: the platform's own for a platform response. */
export function headersOf(response: Response, platform: boolean): Headers {
  return platform ? HEADERS.call(response) : response.headers;
}

/**
 * The headers of a response whose head was read once already; none when
 * they cannot be read again (a response-like's getter that throws, or a
 * Proxy's trap), as what is left of the head is still a response.
 */
export function headersOrNone(response: Response, platform: boolean): Headers {
  try {
    const headers = headersOf(response, platform);
    if (typeof headers?.get === "function") return headers;
  } catch {
    // Below.
  }
  return new Headers();
}

/**
 * One header of a response whose head was read once already; `null` for
 * none, or when its headers cannot be read again (a response-like's getter
 * or `get` that throws, or gives no string).
 */
export function headerOf(
  response: Response,
  platform: boolean,
  name: string,
): string | null {
  try {
    const value: unknown = headersOf(response, platform).get(name);
    // A response-like's headers may give another value (a `Map`'s
    // `undefined` for a name it lacks), which a caller would read as text.
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** The status text of a response; `""` when it has none it can give. */
export function statusTextOf(response: Response, platform: boolean): string {
  return textOf(response, platform ? STATUS_TEXT : undefined, "statusText");
}

/** The URL a response says it came from; `""` when it says none. */
export function urlOf(response: Response, platform: boolean): string {
  return textOf(response, platform ? RESPONSE_URL : undefined, "url");
}

/**
 * The URL whose body is read: the response's own after a redirect (or a
 * hook's request elsewhere), as a `GrabError` names it. The platform's own
 * response, not redirected, is at the request's URL, `href`; reading its
 * `url` would parse it again.
 */
export function answeredAt(
  { response, source, href }: {
    response: Response;
    source: { platform: boolean; direct?: boolean | undefined };
    href: string;
  },
): string {
  const platform = source.platform;
  return platform && source.direct === true && !wasRedirected(response)
    ? href
    : urlOf(response, platform) || href;
}

/** True when a platform response was redirected (or cannot tell). */
export function wasRedirected(response: Response): boolean {
  try {
    return REDIRECTED.call(response);
  } catch {
    return true;
  }
}

// A response-like from a custom fetch (or a Proxy around a platform
// response) may have any getters: one that throws or gives no string gives
// "", as the head it belongs to is still usable. No closure: this runs for
// every grab.
function textOf(
  response: Response,
  getter: ((this: Response) => string) | undefined,
  name: "statusText" | "url",
): string {
  try {
    const text: unknown = getter === undefined
      ? response[name]
      : getter.call(response);
    return typeof text === "string" ? text : "";
  } catch {
    return "";
  }
}

/**
 * The response's body: the platform's own for a platform response. Another
 * response's body that is no `ReadableStream` (a `node-fetch` response's
 * Node.js stream) is read as one; one that is no async iterable either
 * throws a `TypeError` that says so.
 */
export function bodyOf(
  response: Response,
  platform: boolean,
): ReadableStream<Uint8Array> | null {
  if (platform) return BODY.call(response);
  const body: unknown = response.body;
  return body === null ||
      typeof (body as Partial<ReadableStream> | undefined)?.getReader ===
        "function"
    ? body as ReadableStream<Uint8Array> | null
    : iterableBody(response, body);
}

/** True when the body was read or is held by a reader already. */
export function bodyTaken(response: Response, platform: boolean): boolean {
  const used = platform ? BODY_USED.call(response) : response.bodyUsed;
  return used || bodyOf(response, platform)?.locked === true;
}

/** The whole text of a platform response, read by the platform. */
export function platformText(response: Response): Promise<string> {
  return TEXT.call(response);
}

/** The whole bytes of a platform response, read by the platform. */
export function platformBytes(response: Response): Promise<Uint8Array> {
  return BYTES !== undefined
    ? BYTES.call(response)
    : ARRAY_BUFFER.call(response).then((bytes) => new Uint8Array(bytes));
}
