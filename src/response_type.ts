/**
 * What a success's `data` is: the `responseType` option, the types that
 * follow from it, the progress of a body, and the event stream a body read
 * whole is not.
 *
 * @module
 */

import type { GrabStream } from "./grab_stream.ts";

/**
 * How a 2xx body is read: `"json"` (parsed, the default), `"text"`,
 * `"bytes"`, `"blob"`, `"stream"` (the body as a `ReadableStream`), `"sse"`
 * (a {@linkcode GrabStream} of Server-Sent Events) or `"ndjson"` (a
 * {@linkcode GrabStream} of the values of newline-delimited JSON).
 *
 * @example Reading a CSV file as text
 * ```ts
 * import createGrab, { type ResponseType } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const responseType: ResponseType = "text";
 * const [csv] = await grab("GET /reports/sales.csv", { responseType });
 * ```
 */
export type ResponseType =
  | "json"
  | "text"
  | "bytes"
  | "blob"
  | "stream"
  | "sse"
  | "ndjson";

/**
 * Every {@linkcode ResponseType}, for the check of an option's value.
 * @internal
 */
export const RESPONSE_TYPES: readonly ResponseType[] = [
  "json",
  "text",
  "bytes",
  "blob",
  "stream",
  "sse",
  "ndjson",
];

/** The response types whose data is a stream the caller reads. */
export type StreamType = "stream" | "sse" | "ndjson";

/** True for the response types whose body is opened, not read. */
export function isLive(type: ResponseType): type is StreamType {
  return type === "stream" || type === "sse" || type === "ndjson";
}

/**
 * How much of a body has moved: `loaded` bytes of `total`, which is
 * `undefined` when the size is not known in advance.
 *
 * @example A percentage, when the size is known
 * ```ts
 * import type { Progress } from "@grab/grab";
 * const percent = ({ loaded, total }: Progress) =>
 *   total === undefined || total === 0 ? undefined : Math.round((loaded / total) * 100);
 * ```
 */
export interface Progress {
  /** Bytes so far. */
  loaded: number;
  /** All the bytes, when known. */
  total: number | undefined;
}

/**
 * The response type a call reads when its `responseType` is `R`: `R`, and
 * `Default` (the factory's) where `R` may be `undefined`, which is none.
 * @internal
 */
export type ReadAs<
  R extends ResponseType | undefined,
  Default extends ResponseType,
> = Exclude<R, undefined> | (undefined extends R ? Default : never);

/**
 * The `data` of a success read as `R`; `Data` is the JSON value (or each
 * NDJSON value) the caller expects. Every type but JSON's includes `null`,
 * which a 204, a 205 or a HEAD request gives (a JSON body's type is the
 * caller's to state).
 * @internal
 */
export type DataOf<R extends ResponseType, Data> = R extends "json" ? Data
  : R extends "text" ? string | null
  : R extends "bytes" ? Uint8Array | null
  : R extends "blob" ? Blob | null
  : R extends "stream" ? ReadableStream<Uint8Array> | null
  : R extends "sse" ? GrabStream<ServerSentEvent> | null
  : R extends "ndjson" ? GrabStream<Data> | null
  : never;

/**
 * The `data` of a success read as `R` and checked by a schema whose output
 * is `Output`: the schema applies to the value, the text (`null` for a 204,
 * a 205 or a HEAD request included), each event's data or each line; bytes,
 * blobs and raw streams are not checked, and a stream is `null` where there
 * is no body.
 * @internal
 */
export type SchemaDataOf<R extends ResponseType, Output> = R extends "json"
  ? Output
  : R extends "text" ? Output
  : R extends "sse" ? GrabStream<ServerSentEvent<Output>> | null
  : R extends "ndjson" ? GrabStream<Output> | null
  : DataOf<R, unknown>;

/**
 * One Server-Sent Event, as a `"sse"` grab's stream gives it.
 *
 * @typeParam Data The event's data: its text, or the output of a `schema`.
 *
 * @example Following named events
 * ```ts
 * import createGrab, { type ServerSentEvent } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const show = ({ event, data, id }: ServerSentEvent) => console.log(event, id, data);
 * const [events, error] = await grab("GET /feed", { responseType: "sse" });
 * if (error) throw error;
 * for await (const event of events ?? []) show(event); // null after a 204
 * ```
 */
export interface ServerSentEvent<Data = string> {
  /** The `event:` field, `"message"` when none. */
  event: string;
  /** The `data:` lines joined with "\n" (a string unless a schema parsed it). */
  data: Data;
  /**
   * The last event id (the HTML standard's lastEventId) when it was
   * dispatched; "" before any `id:`.
   */
  id: string;
  /**
   * The reconnection time in ms from the latest `retry:` field, when one was
   * seen so far (one past the largest number, which would read as
   * `Infinity`, is skipped).
   */
  retry?: number;
}

/** A `Content-Type` of an event stream alone: any case, parameters after. */
const EVENT_STREAM = /^[\t ]*text\/event-stream[\t ]*(?:;|$)/i;

/**
 * True for a `Content-Type` whose last media type is an event stream, which
 * no JSON body is: a header given twice (by a server and a proxy) reads as
 * the values comma-joined, of which fetch takes the last that is a media
 * type, passing over blank parts and the wildcard of any type. A comma
 * inside a quoted parameter leaves a last part that is no media type: not
 * told.
 */
export function isEventStream(contentType: string): boolean {
  if (!contentType.includes(",")) return EVENT_STREAM.test(contentType);
  const parts = contentType.split(",");
  for (let at = parts.length - 1; at >= 0; at--) {
    const part = parts[at]!.trim();
    if (part !== "" && !part.startsWith("*/*")) return EVENT_STREAM.test(part);
  }
  return false;
}
