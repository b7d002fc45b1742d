/**
 * A `Content-Length` the caller gave, checked against the body it names
 * before any request: the platforms disagree on one that is wrong, and
 * Node's and Bun's `fetch` refuse it only once the request has begun.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import type { HeaderRecord } from "./headers.ts";
import { isArrayBuffer } from "./buffers.ts";

// A Content-Length as RFC 9110 has it; header values are trimmed already.
const COUNT = /^[0-9]+$/;

// The zeros that lead a count, which do not change the number it says.
const LEADING_ZEROS = /^0+(?=[0-9])/;

const LENGTH_NOT_COUNT: ValidationIssue = Object.freeze({
  path: "",
  message:
    "Cannot send the headers: Content-Length is not a count of bytes (digits " +
    "only); leave the header out, and fetch sends the right one",
});

const FORM_LENGTH: ValidationIssue = Object.freeze({
  path: "",
  message:
    "Cannot send a FormData body with a Content-Length header: fetch writes " +
    "the form with a boundary of its own choosing, whose length no other " +
    "value can know; leave Content-Length out",
});

/**
 * The issue of a `Content-Length` the caller gave that the body belies,
 * where its length is known before it is sent: Node's `fetch` fails such a
 * request once it has begun (a network failure, retried), or waits for
 * bytes that never come, where Deno sends the length it counts and a browser
 * drops the header. A form's length is known only to `fetch`, which picks
 * its boundary; a stream's only as it goes, so it goes with the header as
 * given, if it is a count at all (Node and Bun refuse any other value as
 * they send). The value is not repeated: headers may carry secrets.
 */
export function lengthIssue(
  body: unknown,
  headers: HeaderRecord,
): ValidationIssue | undefined {
  const declared = headers["content-length"];
  if (declared === undefined) return undefined;
  if (!COUNT.test(declared)) return LENGTH_NOT_COUNT;
  if (body instanceof FormData) return FORM_LENGTH;
  const size = sizeOf(body);
  const count = declared.replace(LEADING_ZEROS, "");
  if (size === undefined || count === String(size)) return undefined;
  const length = size === 1
    ? "1 byte"
    : `${size.toLocaleString("en-US")} bytes`;
  return {
    path: "",
    message: body === undefined || body === null
      ? "Cannot send the headers: Content-Length names a body, and the request has none; leave the header out"
      : `Cannot send the body: the Content-Length header does not say its length (${length}); leave the header out, and fetch sends the right one`,
  };
}

/** The bytes a body sends, when they are known before it is sent. */
function sizeOf(body: unknown): number | undefined {
  if (body === undefined || body === null) return 0;
  if (typeof body === "string") return new TextEncoder().encode(body).length;
  if (body instanceof URLSearchParams) return String(body).length;
  if (body instanceof Blob) return body.size;
  if (ArrayBuffer.isView(body)) return body.byteLength;
  return isArrayBuffer(body) ? body.byteLength : undefined;
}
