/**
 * A self-cleaning fixture server on 127.0.0.1 and an ephemeral port.
 *
 * @module
 */

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/** A route handler; `request` has already been read into `seen.body`. */
export type Handler = (
  request: Request,
  seen: SeenRequest,
) => Response | Promise<Response>;

/** A running fixture server. */
export interface TestServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` */
  url: `http://127.0.0.1:${number}`;
  /** Every request received, in order. */
  requests: SeenRequest[];
}

/**
 * Starts a server. With a routes object, the first route whose pattern
 * (a `URLPattern` pathname such as `/status/:code`) matches handles the
 * request; no match is a 404.
 */
export function startServer(
  handler: Handler | Record<string, Handler>,
): TestServer {
  const requests: SeenRequest[] = [];
  const route = typeof handler === "function" ? handler : router(handler);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const seen: SeenRequest = {
        method: request.method,
        url: new URL(request.url),
        headers: request.headers,
        body: await request.text(),
      };
      requests.push(seen);
      return await route(request, seen);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}` as const,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

function router(routes: Record<string, Handler>): Handler {
  const table = Object.entries(routes).map(([pathname, handler]) =>
    [new URLPattern({ pathname }), handler] as const
  );
  return (request, seen) => {
    for (const [pattern, handler] of table) {
      if (pattern.test(seen.url)) return handler(request, seen);
    }
    return new Response("no route", { status: 404 });
  };
}

/** A JSON response. */
export function json(
  body: unknown,
  init: ResponseInit = {},
): Response {
  const headers = new Headers(init.headers);
  if (!headers.has("content-type")) {
    headers.set("content-type", "application/json");
  }
  return new Response(JSON.stringify(body), { ...init, headers });
}

/** A port on 127.0.0.1 that nothing listens on. */
export function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
