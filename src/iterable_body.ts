/**
 * The body of a response-like whose `body` is not a `ReadableStream`: the
 * Node.js stream of a `node-fetch` (or `cross-fetch`) response, or any other
 * async iterable of bytes, read as a stream so that it is counted, capped
 * and cancelled like any other body.
 *
 * @module
 */

import { letGo } from "./let_go.ts";

// One stream per response: its reads and its cancel go to the same body.
const STREAMS = new WeakMap<object, ReadableStream<Uint8Array>>();

/**
 * The stream of `response`'s `body`, an async iterable that is no
 * `ReadableStream`. Throws a `TypeError` that says what the body is when it
 * is not one either.
 */
export function iterableBody(
  response: object,
  body: unknown,
): ReadableStream<Uint8Array> {
  let stream = STREAMS.get(response);
  if (stream === undefined) {
    stream = streamOf(response, body);
    STREAMS.set(response, stream);
  }
  return stream;
}

function streamOf(
  response: object,
  body: unknown,
): ReadableStream<Uint8Array> {
  const iterate = (body as Partial<AsyncIterable<Uint8Array>> | undefined)
    ?.[Symbol.asyncIterator];
  if (typeof iterate !== "function") {
    throw new TypeError(
      `Cannot read the response: its body is ${kindOf(body)}, neither a ` +
        "ReadableStream nor an async iterable of bytes; have fetch return a " +
        "Response (new Response(text), Response.json(value))",
    );
  }
  const iterator = iterate.call(body);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done === true) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      // A Node.js stream's iterator destroys the stream, but not its socket
      // when the stream is one the response was piped into (`node-fetch`
      // v2, `make-fetch-happen`), nor at all while a read waits on a body
      // that stalls (its return waits for that read): the `fetch`, told by
      // its signal, closes the socket.
      letGo(response, reason);
      await iterator.return?.(reason);
    },
  }, { highWaterMark: 0 });
}

function kindOf(body: unknown): string {
  if (body === undefined) return "missing";
  return typeof body === "object" ? "an object" : `a ${typeof body}`;
}
