/**
 * Request bodies (JSON or passed through) and response bodies (read to the
 * end under a byte cap, or cancelled).
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import type { Deadline } from "./deadline.ts";
import { findNonJsonValues } from "./json_value.ts";

/** True for the body types sent as they are, without serialisation. */
export function isPassThrough(body: unknown): body is BodyInit {
  return typeof body === "string" ||
    body instanceof FormData ||
    body instanceof URLSearchParams ||
    body instanceof Blob ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof ReadableStream;
}

/** A request body ready for `fetch`. */
export interface EncodedBody {
  /** What `fetch` sends; `undefined` for no body. */
  body: BodyInit | undefined;
  /** True when the body was serialised to JSON here. */
  json: boolean;
}

const NO_BODY: EncodedBody = Object.freeze({ body: undefined, json: false });

/**
 * Serialises a plain value to JSON, or passes a body type through. A value
 * JSON cannot carry gives the issues instead.
 *
 * @example
 * ```ts ignore
 * encodeBody({ a: 1 }); // { body: '{"a":1}', json: true }
 * encodeBody(new FormData()); // { body: FormData, json: false }
 * ```
 */
export function encodeBody(body: unknown): EncodedBody | ValidationIssue[] {
  if (body === undefined || body === null) return NO_BODY;
  if (isPassThrough(body)) return { body, json: false };
  const json = toJson(body);
  return typeof json === "string" ? { body: json, json: true } : json;
}

/**
 * `JSON.stringify` in one pass that also notices what it would silently drop
 * or turn into `null` (a function, a symbol, `NaN`, `Infinity`), so each
 * `toJSON` and getter runs once. Only when something is wrong does a second
 * walk find where, for the issues.
 */
export function toJson(value: unknown): string | ValidationIssue[] {
  let lossy = false;
  let text: string | undefined;
  let failure: unknown;
  try {
    text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === "number" ? !Number.isFinite(item) : notJson(item)) {
        lossy = true;
      }
      return item;
    });
  } catch (error) {
    failure = error;
  }
  if (!lossy && failure === undefined && text !== undefined) return text;
  const issues = findNonJsonValues(value);
  if (issues.length > 0) return issues;
  const why = failure instanceof Error
    ? failure.message
    : "it has no JSON form";
  return [{ path: "", message: `Cannot serialise the body as JSON: ${why}` }];
}

function notJson(item: unknown): boolean {
  const type = typeof item;
  return type === "bigint" || type === "function" || type === "symbol";
}

/**
 * Cancels a response body, ignoring a body that is already used or locked
 * (a hook read it): either way nothing is left open.
 */
export async function cancelBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Used or locked by its reader; not ours to release.
  }
}

/** The body was over the byte cap and has been cancelled. */
export const TOO_LARGE: unique symbol = Symbol("too-large");

const decoder = new TextDecoder();

/** Where a response body comes from, and the deadline its reads are held to. */
export interface BodySource {
  /**
   * True when the platform's `fetch` made the response and nothing replaced
   * it: its body honours the HTTP framing and the abort signal. Any other
   * body may lie about its length, never end, or ignore the signal.
   */
  platform: boolean;
  /** Bounds each read of a body that may ignore the signal. */
  deadline?: Deadline | undefined;
}

const UNTRUSTED: BodySource = { platform: false };
const DIGITS = /^\d+$/;

/**
 * Reads a response body as text, or `null` when it is empty by status,
 * method or bytes. Cancels a body over `maxBodyBytes` as soon as the cap is
 * passed, before buffering the rest. A read failure rejects; a read that
 * outlasts `source.deadline` rejects with {@linkcode PASSED}.
 */
export async function readBody(
  response: Response,
  method: string,
  maxBodyBytes: number,
  source: BodySource = UNTRUSTED,
): Promise<string | null | typeof TOO_LARGE> {
  // Reading `response.body` makes a JavaScript stream and loses the
  // platform's fast path, so it is touched only where a stream is needed.
  const status = response.status;
  if (method === "HEAD" || status === 204 || status === 205) {
    await discardBody(response, source);
    return null;
  }
  const headers = response.headers;
  const declared = headers.get("content-length");
  if (declared !== null && Number(declared) > maxBodyBytes) {
    await discardBody(response, source);
    return TOO_LARGE;
  }
  if (source.platform && fitsFastPath(response, declared, maxBodyBytes)) {
    const text = await response.text();
    return text === "" ? null : text;
  }
  return await readStream(response, maxBodyBytes, source);
}

/**
 * The platform's own reader is far faster than a JavaScript stream loop. It
 * is safe only when the body cannot outgrow the cap: no cap at all, or a
 * declared length that the framing honours. A `Transfer-Encoding` overrides
 * `Content-Length` (RFC 9112, 6.3), so the length then says nothing; a
 * compressed body inflates past it; a browser hides `Content-Encoding` on a
 * cross-origin response.
 */
function fitsFastPath(
  response: Response,
  declared: string | null,
  maxBodyBytes: number,
): boolean {
  if (maxBodyBytes === Infinity) return true;
  if (declared === null || !DIGITS.test(declared)) return false;
  const headers = response.headers;
  return headers.get("transfer-encoding") === null &&
    headers.get("content-encoding") === null &&
    response.type !== "cors" && response.type !== "opaque";
}

/**
 * Cancels a body that is not read: the platform's at once, any other within
 * the deadline, as it may never answer.
 */
export async function discardBody(
  response: Response,
  source: BodySource,
): Promise<void> {
  const cancelling = cancelBody(response);
  await (source.deadline === undefined || source.platform
    ? cancelling
    : source.deadline.race(cancelling).catch(ignore));
}

async function readStream(
  response: Response,
  maxBodyBytes: number,
  { platform, deadline }: BodySource,
): Promise<string | null | typeof TOO_LARGE> {
  const stream = response.body;
  if (stream === null) return null;
  const reader = stream.getReader();
  const bounded = !platform && deadline !== undefined;
  const read = bounded
    ? () => deadline.race(reader.read())
    : () => reader.read();
  // A body that is not the platform's may never answer a cancel either.
  const cancel = (): Promise<void> => {
    const cancelling = reader.cancel().catch(ignore);
    return bounded ? deadline.race(cancelling).catch(ignore) : cancelling;
  };
  let first: Uint8Array | undefined;
  let streaming: TextDecoder | undefined;
  let text = "";
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBodyBytes) {
        await cancel();
        return TOO_LARGE;
      }
      if (first === undefined && streaming === undefined) {
        first = value;
        continue;
      }
      if (streaming === undefined) {
        // Deno 2.9 drops a U+FEFF that starts any streamed chunk, not just
        // the first: keep every BOM here and strip the leading one below.
        streaming = new TextDecoder("utf-8", { ignoreBOM: true });
        text = streaming.decode(first, { stream: true });
        first = undefined;
      }
      text += streaming.decode(value, { stream: true });
    }
  } catch (error) {
    // A body that broke off, or one whose read outlasted the deadline.
    await cancel();
    throw error;
  } finally {
    releaseLock(reader);
  }
  if (streaming !== undefined) {
    text += streaming.decode();
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  } else if (first !== undefined) text = decoder.decode(first);
  // A body of only a byte order mark is as empty as no bytes at all.
  return size === 0 || text === "" ? null : text;
}

function releaseLock(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  try {
    reader.releaseLock();
  } catch {
    // A read still pending on a body that ignored the cancel.
  }
}

function ignore(): void {}
