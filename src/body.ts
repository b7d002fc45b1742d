/**
 * Request bodies (JSON or passed through) and response bodies (read to the
 * end under a byte cap, or cancelled).
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
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
  const issues = findNonJsonValues(body);
  if (issues.length > 0) return issues;
  return { body: JSON.stringify(body), json: true };
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

/**
 * Reads a response body as text, or `null` when it is empty by status,
 * method or bytes. Cancels a body over `maxBodyBytes` as soon as the cap is
 * passed, before buffering the rest. A read failure rejects.
 */
export async function readBody(
  response: Response,
  method: string,
  maxBodyBytes: number,
): Promise<string | null | typeof TOO_LARGE> {
  // Reading `response.body` makes a JavaScript stream and loses the
  // platform's fast path, so it is touched only where a stream is needed.
  const status = response.status;
  if (method === "HEAD" || status === 204 || status === 205) {
    await response.body?.cancel();
    return null;
  }
  const headers = response.headers;
  const declared = headers.get("content-length");
  if (declared !== null && Number(declared) > maxBodyBytes) {
    await response.body?.cancel();
    return TOO_LARGE;
  }
  // The platform's own reader is far faster than a JavaScript stream loop.
  // It is safe when the body cannot outgrow the cap: no cap, or a declared
  // length (HTTP/1.1 framing stops there) of an uncompressed body whose
  // headers are all visible (a browser hides Content-Encoding cross-origin).
  if (
    maxBodyBytes === Infinity ||
    (declared !== null && headers.get("content-encoding") === null &&
      response.type !== "cors" && response.type !== "opaque")
  ) {
    const text = await response.text();
    return text === "" ? null : text;
  }
  const stream = response.body;
  if (stream === null) return null;
  const reader = stream.getReader();
  let first: Uint8Array | undefined;
  let streaming: TextDecoder | undefined;
  let text = "";
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBodyBytes) {
        await reader.cancel();
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
  } finally {
    reader.releaseLock();
  }
  if (streaming !== undefined) {
    text += streaming.decode();
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  } else if (first !== undefined) text = decoder.decode(first);
  // A body of only a byte order mark is as empty as no bytes at all.
  return size === 0 || text === "" ? null : text;
}
