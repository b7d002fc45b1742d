/**
 * Formats: what `"json"` and `"json-api"` do to a request body on its way
 * out and to a success body on its way in. The core calls a {@linkcode Codec}
 * and knows nothing else of either format; the JSON:API codec is loaded on
 * first use, so a program that only speaks JSON never loads it.
 *
 * @module
 */

import { convertKeys, KeyClash } from "./convert_keys.ts";
import type { HttpMethod } from "./endpoint.ts";
import type { ValidationIssue } from "./errors.ts";
import type { TransportExtra } from "./error_types.ts";
import {
  notADocumentMessage,
  timeoutMessage,
  transportError,
} from "./transport_error.ts";
import { httpError, MAX_QUOTED, sentHeaders } from "./http_error.ts";
import { isArrayBuffer, isSharedBuffer } from "./buffers.ts";
import { toJson } from "./json_text.ts";
import {
  errorDocumentMessage,
  parseErrorDocument,
} from "./jsonapi/error_document.ts";
import { JSONAPI_MEDIA_TYPE } from "./jsonapi/media_type.ts";
import type { Format } from "./query.ts";
import type { Resolved } from "./resolve.ts";
import { Deadline } from "./deadline.ts";
import {
  type GrabResult,
  HTTP_ERROR_META,
  type SendOutcome,
  type SuccessMeta,
  TRANSPORT_META,
} from "./result.ts";
import { lazy } from "./lazy.ts";
import { jsonApiKit } from "./codec_kit.ts";
import { type StandardSchema, validateWithin } from "./schema.ts";
import { owns } from "./object.ts";

// Not `BodyInit`: only the DOM library declares it, and a Node project
// compiles without it (`@types/node` declares `RequestInit`).
type PassThrough = NonNullable<RequestInit["body"]>;

/** A request body ready for `fetch`. */
export interface EncodedBody {
  /** What `fetch` sends; `undefined` for no body. */
  body: PassThrough | undefined;
  /** True when the format wrote the body, so its media type applies. */
  encoded: boolean;
}

/** A success body read by a format. */
export type Decoded =
  | {
    ok: true;
    data: unknown;
    meta?: Record<string, unknown> | undefined;
    links?: Record<string, unknown> | undefined;
    jsonapi?: Record<string, unknown> | undefined;
  }
  | {
    ok: false;
    reason: string;
    /** True when the reason is two keys that the casing makes one. */
    clash?: boolean;
  };

/** What a format does; see the module doc. */
export interface Codec {
  /** `Accept`, and `Content-Type` of a body it encoded; `undefined` for none. */
  mediaType(resolved: Resolved): string | undefined;
  /** The body to send, or the issues that stop it. */
  encodeBody(
    body: unknown,
    method: HttpMethod,
    resolved: Resolved,
  ): EncodedBody | ValidationIssue[];
  /** The data of a parsed, non-empty 2xx body. */
  decode(body: unknown, resolved: Resolved): Decoded;
  /**
   * Gives a schema's `output` what the format keeps off the `data` it
   * checked (a JSON:API resource's links and meta); none for JSON.
   */
  adopt?(data: unknown, output: unknown): void;
}

/** No body at all. */
export const NO_BODY: EncodedBody = Object.freeze({
  body: undefined,
  encoded: false,
});

/**
 * True for the body types sent as they are, without serialisation: bytes
 * from another realm too, and a `SharedArrayBuffer`, which the request then
 * refuses as bytes `fetch` cannot send rather than as JSON.
 */
export function isPassThrough(body: unknown): body is PassThrough {
  return typeof body === "string" ||
    body instanceof FormData ||
    body instanceof URLSearchParams ||
    body instanceof Blob ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof ReadableStream ||
    isArrayBuffer(body) ||
    isSharedBuffer(body);
}

/** The `"json"` format: bodies as JSON, keys in the wire casing. */
export const JSON_CODEC: Codec = {
  mediaType: () => "application/json",
  encodeBody(body, _method, resolved) {
    if (body === undefined || body === null) return NO_BODY;
    if (isPassThrough(body)) return { body, encoded: false };
    const casing = resolved.casing === "none" ? "none" : resolved.wireCasing;
    const json = toJson(body, casing);
    return typeof json === "string" ? { body: json, encoded: true } : json;
  },
  decode(body, { casing }) {
    if (casing === "none") return { ok: true, data: body };
    try {
      return { ok: true, data: convertKeys(body, casing) };
    } catch (error) {
      if (!(error instanceof KeyClash)) throw error;
      return { ok: false, reason: error.message, clash: true };
    }
  },
};

let jsonApiCodec: Codec | undefined;
const jsonApi = lazy(() =>
  import("./jsonapi/format.ts").then((m) =>
    jsonApiCodec = m.jsonApiCodec(jsonApiKit(isPassThrough, NO_BODY))
  )
);

/**
 * The codec of `format`; the JSON:API one is loaded on first use, and at
 * hand once loaded.
 */
export function codecFor(format: Format): Codec | Promise<Codec> {
  if (format === "json") return JSON_CODEC;
  return jsonApiCodec ?? jsonApi();
}

/**
 * The tuple of an exchange's outcome: a non-2xx response as a `GrabError`
 * (with its JSON:API errors, in either format), a 2xx body decoded by the
 * format and checked by the schema, a failure as it is.
 */
export function decodeOutcome(
  outcome: SendOutcome,
  resolved: Resolved,
  codec: Codec,
  deadline: Deadline = new Deadline(false, undefined),
): GrabResult<unknown> | Promise<GrabResult<unknown>> {
  if (!outcome.ok) return [null, outcome.error, TRANSPORT_META];
  const { status, headers, method } = outcome;
  if (status < 200 || status > 299) {
    const errors = parseErrorDocument(outcome.body, {
      casing: resolved.casing,
      declared: isJsonApiMediaType(outcome.headers.get("content-type")),
    });
    const message = errors && errorDocumentMessage(errors, MAX_QUOTED);
    const error = httpError(
      method,
      outcome,
      errors,
      message,
      resolved.redirect,
    );
    return [null, error, HTTP_ERROR_META];
  }
  const meta: SuccessMeta = { statusCode: status, headers };
  const type = resolved.responseType;
  if (type !== "json" && type !== "text") {
    // Bytes, blobs and streams are the data as read; a live body's items
    // are decoded and checked one at a time, as they are read.
    return [outcome.empty ? null : outcome.body, null, meta];
  }
  let data: unknown = null;
  if (type === "text") data = outcome.body;
  else if (!outcome.empty) {
    const decoded = codec.decode(outcome.body, resolved);
    if (!decoded.ok) {
      return failed(
        "parse",
        method,
        outcome.url,
        decoded.clash === true
          ? { message: `Cannot read the response: ${decoded.reason}` }
          // The body is JSON: only a JSON:API document's shape fails here.
          : {
            message: notADocumentMessage(
              status,
              headers.get("content-type"),
              decoded.reason,
            ),
          },
      );
    }
    data = decoded.data;
    if (decoded.meta !== undefined) meta.meta = decoded.meta;
    if (decoded.links !== undefined) meta.links = decoded.links;
    if (decoded.jsonapi !== undefined) meta.jsonapi = decoded.jsonapi;
  }
  const schema = resolved.schema;
  if (schema === undefined) return [data, null, meta];
  return checkData(schema, data, {
    meta,
    method,
    href: outcome.url,
    deadline,
    codec,
    sent: sentHeaders(outcome),
  });
}

/** Where the data being checked came from, and the deadline to keep. */
interface CheckContext {
  meta: SuccessMeta;
  method: string;
  href: string;
  deadline: Deadline;
  codec: Codec;
  /** The request's headers, whose credentials the message leaves out. */
  sent: HeadersInit | undefined;
}

/** The data checked by the call's schema, within the deadline. */
async function checkData(
  schema: StandardSchema,
  data: unknown,
  { meta, method, href, deadline, codec, sent }: CheckContext,
): Promise<GrabResult<unknown>> {
  const checked = await validateWithin(schema, data, deadline);
  if (owns(checked, "passed")) {
    const { passed, cause } = checked;
    const message = passed === "timeout" ? timeoutMessage(deadline) : undefined;
    const failure = transportError(passed, method, href, { cause, message });
    return [null, failure, TRANSPORT_META];
  }
  if (owns(checked, "issues")) {
    return failed("schema", method, href, { issues: checked.issues, sent });
  }
  codec.adopt?.(data, checked.value);
  return [checked.value, null, meta];
}

function failed(
  kind: "parse" | "schema",
  method: string,
  href: string,
  extra: TransportExtra,
): GrabResult<unknown> {
  return [null, transportError(kind, method, href, extra), TRANSPORT_META];
}

/** True for `application/vnd.api+json`, with parameters or without. */
function isJsonApiMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const at = contentType.indexOf(";");
  const type = (at === -1 ? contentType : contentType.slice(0, at)).trim();
  return type.toLowerCase() === JSONAPI_MEDIA_TYPE;
}
