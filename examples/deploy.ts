/**
 * A Deno Deploy function: `GET /users/:id` calls an upstream API through
 * grab and maps the `[data, error, meta]` tuple to a response. Nothing
 * throws on the request path: every outcome is a status code.
 *
 * | upstream outcome             | this function answers |
 * | ---------------------------- | --------------------- |
 * | 2xx with a user              | 200 with the user     |
 * | 404                          | 404                   |
 * | any other status             | 502                   |
 * | timeout                      | 504                   |
 * | refused, reset, not JSON     | 502                   |
 *
 * Run it locally, or deploy the file as it is (`deno serve` and Deno Deploy
 * use the default export):
 *
 *     UPSTREAM_URL=https://api.example.com deno serve --allow-net --allow-env examples/deploy.ts
 *
 * @module
 */

import createGrab, { type GrabOptions } from "../mod.ts";

/** What the handler needs besides the upstream address. */
export interface HandlerOptions {
  /** A bearer token for the upstream API. */
  token?: string;
  /** Milliseconds for each upstream grab, retries included. */
  timeout?: number;
  /** Retries of a failed upstream GET. */
  retry?: number;
}

interface User {
  id: number;
  name: string;
}

const USER_ROUTE = new URLPattern({ pathname: "/users/:id" });

/**
 * Creates the request handler for an upstream API.
 *
 * @param upstream The upstream API's base address.
 * @param options Token, timeout and retries for the upstream grabs.
 * @returns A `fetch`-style handler for `Deno.serve`.
 */
export function createHandler(
  upstream: string | URL,
  options: HandlerOptions = {},
): (request: Request) => Promise<Response> {
  const factory: GrabOptions = {
    timeout: options.timeout ?? 5_000,
    retry: options.retry ?? 1,
  };
  if (options.token) {
    factory.headers = { authorization: `Bearer ${options.token}` };
  }
  const grab = createGrab(upstream, factory);

  return async function handler(request: Request): Promise<Response> {
    const match = USER_ROUTE.exec(request.url);
    if (request.method !== "GET" || !match) {
      return Response.json({ error: "not found" }, { status: 404 });
    }
    const id = match.pathname.groups.id ?? "";
    if (!/^\d+$/.test(id)) {
      return Response.json({ error: "id must be a number" }, { status: 400 });
    }

    const [user, error] = await grab<User>("GET /users/:id", {
      params: { id },
      signal: request.signal,
    });
    if (error === null) {
      return Response.json(user, {
        headers: { "cache-control": "max-age=60" },
      });
    }
    if (error.name === "GrabError") {
      return error.statusCode === 404
        ? Response.json({ error: "no such user" }, { status: 404 })
        : Response.json(
          { error: `upstream answered ${error.statusCode}` },
          { status: 502 },
        );
    }
    return Response.json(
      { error: `upstream failed: ${error.kind}` },
      { status: error.kind === "timeout" ? 504 : 502 },
    );
  };
}

/** The function Deno Deploy and `deno serve` run. */
export default {
  fetch: createHandler(
    Deno.env.get("UPSTREAM_URL") ?? "https://api.example.com",
    { token: Deno.env.get("UPSTREAM_TOKEN") ?? "" },
  ),
} satisfies Deno.ServeDefaultExport;
