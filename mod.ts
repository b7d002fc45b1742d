/**
 * grab: an HTTP client for Deno and every runtime with `fetch`. A grab
 * resolves to `[data, error, meta]` instead of throwing, and a JSON:API mode
 * validates writes, denormalises compound documents and parses error
 * documents.
 *
 * ```ts
 * import createGrab, { orThrow } from "@grab/grab";
 *
 * const grab = createGrab("https://api.example.com/v1");
 *
 * const [user, error, meta] = await grab("GET /users/:id", { params: { id: 7 } });
 * if (error) {
 *   console.error(error.name, error.message);
 * } else {
 *   console.log(meta.statusCode, user);
 * }
 *
 * // The throwing style, for TanStack Query, SWR and friends:
 * const [same] = await orThrow(grab("GET /users/:id", { params: { id: 7 } }));
 * ```
 *
 * @module
 */

export { createGrab, createGrab as default } from "./src/create_grab.ts";
export { Call } from "./src/call.ts";
export { orThrow } from "./src/or_throw.ts";
export { paginate } from "./src/paginate.ts";
export { jsonApiOf } from "./src/jsonapi/source.ts";
export {
  GrabError,
  GrabTransportError,
  GrabValidationError,
} from "./src/errors.ts";
export {
  isGrabHttpError,
  isGrabTransportError,
  isGrabValidationError,
} from "./src/guards.ts";

export type {
  GrabResult,
  HttpErrorMeta,
  SendOutcome,
  SuccessMeta,
  TransportMeta,
} from "./src/result.ts";
export type { Endpoint, HttpMethod } from "./src/endpoint.ts";
export type { GrabOptions } from "./src/options.ts";
export type { GrabCallOptions, SendOptions } from "./src/call_options.ts";
export type { Casing } from "./src/casing.ts";
export type { Format } from "./src/query.ts";
export type { JsonApiError } from "./src/jsonapi/types.ts";
export type { OrThrowResult } from "./src/or_throw.ts";
export type { RetryOptions } from "./src/retry.ts";
export type { Hooks } from "./src/hooks.ts";
export type { TransportErrorKind, ValidationIssue } from "./src/errors.ts";
export type {
  Progress,
  ResponseType,
  ServerSentEvent,
} from "./src/response_type.ts";
export type { GrabStream } from "./src/grab_stream.ts";
