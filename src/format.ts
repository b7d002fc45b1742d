/**
 * Formats: what `"json"` and `"json-api"` do to a request body on its way
 * out and to a success body on its way in. The core calls a {@linkcode Codec}
 * and knows nothing else of either format; the JSON:API codec is loaded on
 * first use, so a program that only speaks JSON never loads it.
 *
 * @module
 */

import { type Casing, convertKey, convertKeys } from "./casing.ts";
import type { HttpMethod } from "./endpoint.ts";
import type { ValidationIssue } from "./errors.ts";
import { transportError } from "./transport_error.ts";
import { httpError } from "./http_error.ts";
import {
  findNonJsonValues,
  isCollection,
  isInvalidDate,
} from "./json_value.ts";
import { isPlainObject, setOwn } from "./object.ts";
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
import { type StandardSchema, validateWithin } from "./schema.ts";

/** A request body ready for `fetch`. */
export interface EncodedBody {
  /** What `fetch` sends; `undefined` for no body. */
  body: BodyInit | undefined;
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
  }
  | { ok: false; reason: string };

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
}

/** No body at all. */
export const NO_BODY: EncodedBody = Object.freeze({
  body: undefined,
  encoded: false,
});

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

/**
 * `JSON.stringify` in one pass that also notices what it would silently drop
 * or turn into `null` (a function, a symbol, `NaN`, `Infinity`), and renames
 * the keys of plain objects to `casing` on the way: each `toJSON` and getter
 * runs once. Only when something is wrong does a second walk find where, for
 * the issues.
 *
 * @example
 * ```ts ignore
 * toJson({ userId: 1 }, "snake_case"); // '{"user_id":1}'
 * toJson({ n: NaN }, "none"); // [{ path: "/n", message: "… value is NaN" }]
 * ```
 */
export function toJson(
  value: unknown,
  casing: Casing,
): string | ValidationIssue[] {
  let lossy = false;
  let text: string | undefined;
  let failure: unknown;
  try {
    text = JSON.stringify(
      value,
      function (this: Record<string, unknown>, key: string, item: unknown) {
        if (
          typeof item === "number" ? !Number.isFinite(item) : notJson(item) ||
            // An invalid Date's toJSON gives null. Its data property is
            // looked at, not read again: a getter runs once.
            (item === null &&
              isInvalidDate(Object.getOwnPropertyDescriptor(this, key)?.value))
        ) {
          lossy = true;
        } else if (casing !== "none" && isPlainObject(item)) {
          return renamed(item, casing);
        }
        return item;
      },
    );
  } catch (error) {
    // A circular value, a BigInt, a throwing toJSON or getter; with casing,
    // a circular value overflows the stack instead (each level is a copy).
    failure = error;
  }
  if (!lossy && failure === undefined && text !== undefined) return text;
  const issues = findNonJsonValues(value, "", { callToJSON: true });
  if (issues.length > 0) return issues;
  const why = failure instanceof Error
    ? failure.message
    : "it has no JSON form";
  return [{ path: "", message: `Cannot serialise the body as JSON: ${why}` }];
}

function notJson(item: unknown): boolean {
  const type = typeof item;
  return type === "bigint" || type === "function" || type === "symbol" ||
    isCollection(item);
}

/** A shallow copy with the keys in `casing`; `__proto__` stays a data key. */
function renamed(
  item: Record<string, unknown>,
  casing: Casing,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(item)) {
    setOwn(out, convertKey(key, casing), item[key]);
  }
  return out;
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
  decode(body, resolved) {
    return {
      ok: true,
      data: resolved.casing === "none"
        ? body
        : convertKeys(body, resolved.casing),
    };
  },
};

let jsonApiCodec: Codec | undefined;
const jsonApi = lazy(() =>
  import("./jsonapi/format.ts").then((m) => jsonApiCodec = m.JSON_API_CODEC)
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
  method: HttpMethod,
  resolved: Resolved,
  codec: Codec,
  deadline: Deadline = new Deadline(false, undefined),
): GrabResult<unknown> | Promise<GrabResult<unknown>> {
  if (!outcome.ok) return [null, outcome.error, TRANSPORT_META];
  const { status, headers } = outcome;
  if (status < 200 || status > 299) {
    const errors = parseErrorDocument(outcome.body, {
      casing: resolved.casing,
      declared: isJsonApiMediaType(outcome.headers.get("content-type")),
    });
    const message = errors && errorDocumentMessage(errors);
    const error = httpError(method, outcome, errors, message);
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
      return failed("parse", method, outcome.url, { detail: decoded.reason });
    }
    data = decoded.data;
    if (decoded.meta !== undefined) meta.meta = decoded.meta;
    if (decoded.links !== undefined) meta.links = decoded.links;
  }
  const schema = resolved.schema;
  if (schema === undefined) return [data, null, meta];
  return checkData(schema, data, {
    meta,
    method,
    href: outcome.url,
    deadline,
  });
}

/** Where the data being checked came from, and the deadline to keep. */
interface CheckContext {
  meta: SuccessMeta;
  method: HttpMethod;
  href: string;
  deadline: Deadline;
}

/** The data checked by the call's schema, within the deadline. */
async function checkData(
  schema: StandardSchema,
  data: unknown,
  { meta, method, href, deadline }: CheckContext,
): Promise<GrabResult<unknown>> {
  const checked = await validateWithin(schema, data, deadline);
  if ("passed" in checked) {
    const { passed, cause } = checked;
    const failure = transportError(passed, method, href, { cause });
    return [null, failure, TRANSPORT_META];
  }
  if ("issues" in checked) {
    return failed("schema", method, href, { issues: checked.issues });
  }
  return [checked.value, null, meta];
}

function failed(
  kind: "parse" | "schema",
  method: HttpMethod,
  href: string,
  extra: { detail?: string; issues?: readonly unknown[] },
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
