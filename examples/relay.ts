/**
 * A relay: `POST /chat` asks an OpenAI-style upstream for a streamed
 * completion and passes the text to its own client as Server-Sent Events,
 * one `data:` line of JSON per piece of text, then `event: done`, or
 * `event: error` with the failure's kind when the upstream stream breaks off.
 *
 * The client may leave at any moment, and the upstream stream must end when
 * it does, or each reader who closes the tab keeps an upstream connection
 * (and its bill) running. Two things see to it: the upstream grab takes the
 * request's `signal`, which the server aborts when the client goes, and the
 * stream the client reads pulls one event at a time and cancels the upstream
 * stream when it is cancelled itself. An upstream that goes silent
 * mid-answer is given up after `idleTimeout`, with `event: error`.
 *
 * Run it locally (`deno serve` uses the default export):
 *
 *     UPSTREAM_URL=https://api.openai.com/v1 OPENAI_API_KEY=… deno serve --allow-net --allow-env examples/relay.ts
 *
 * @module
 */

import createGrab from "../mod.ts";

/** What the relay needs besides the upstream address. */
export interface RelayOptions {
  /** A bearer token for the upstream API. */
  token?: string | undefined;
  /** The model to ask for. */
  model?: string;
  /**
   * Milliseconds the upstream may go silent mid-answer before the relay
   * gives up on it; 30 s by default.
   */
  idleTimeout?: number;
}

interface Chunk {
  choices: { delta?: { content?: string } }[];
}

const encoder = new TextEncoder();

function event(name: string, data: unknown): Uint8Array {
  const head = name === "message" ? "" : `event: ${name}\n`;
  return encoder.encode(`${head}data: ${JSON.stringify(data)}\n\n`);
}

/**
 * Creates the request handler for an upstream API.
 *
 * @param upstream The upstream API's base address.
 * @param options Token and model for the upstream grabs.
 * @returns A `fetch`-style handler for `Deno.serve`.
 */
export function createRelay(
  upstream: string | URL,
  options: RelayOptions = {},
): (request: Request) => Promise<Response> {
  const grab = createGrab(upstream, {
    headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    timeout: 10_000,
  });
  const model = options.model ?? "gpt-4o-mini";
  return async (request) => {
    const { pathname } = new URL(request.url);
    if (request.method !== "POST" || pathname !== "/chat") {
      return Response.json({ error: "POST /chat only" }, { status: 404 });
    }
    const { prompt } = await request.json().catch(() => ({}));
    if (typeof prompt !== "string") {
      return Response.json({ error: "prompt must be text" }, { status: 400 });
    }
    const [events, error] = await grab("POST /chat/completions", {
      body: {
        model,
        stream: true,
        messages: [{ role: "user", content: prompt }],
      },
      responseType: "sse",
      signal: request.signal,
      // An upstream that stalls mid-answer ends the relay with an error
      // event, rather than holding the client's connection.
      idleTimeout: options.idleTimeout ?? 30_000,
    });
    if (error) {
      // The upstream's own words stay here: they may name its internals.
      const said = error.name === "GrabError"
        ? `upstream answered ${error.statusCode}`
        : `upstream ${error.kind}`;
      const status = said === "upstream timeout" ? 504 : 502;
      return Response.json({ error: said }, { status });
    }
    if (events === null) return new Response(null, { status: 204 });
    const upstreamEvents = events[Symbol.asyncIterator]();
    const body = new ReadableStream<Uint8Array>({
      // One upstream event at a time, as fast as the client reads; a pull
      // must enqueue, or the stream waits for a read that never comes.
      async pull(controller) {
        try {
          for (;;) {
            const { done, value } = await upstreamEvents.next();
            if (done || value.data === "[DONE]") {
              const failure = events.error;
              controller.enqueue(
                failure
                  ? event("error", { kind: failure.kind })
                  : event("done", {}),
              );
              controller.close();
              return await events.cancel();
            }
            const chunk = JSON.parse(value.data) as Chunk;
            const text = chunk.choices[0]?.delta?.content;
            if (text) return controller.enqueue(event("message", { text }));
          }
        } catch (error) {
          // Data that is not a chunk: end both streams, not just this one.
          await events.cancel();
          throw error;
        }
      },
      // The client left: release the upstream stream now.
      cancel: () => events.cancel(),
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
      },
    });
  };
}

export default {
  fetch: createRelay(
    Deno.env.get("UPSTREAM_URL") ?? "https://api.openai.com/v1",
    { token: Deno.env.get("OPENAI_API_KEY") },
  ),
} satisfies Deno.ServeDefaultExport;
