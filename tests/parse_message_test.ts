/**
 * A 2xx body that is not JSON fails as kind `"parse"` with a message that
 * tells the caller what the server sent (its status and its `Content-Type`),
 * bounded and redacted.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";

/** A server that answers `body` with `status` and, when given, `type`. */
function answering(status: number, body: string, type?: string) {
  return startServer(() => {
    const response = new Response(body, { status });
    // A string body is typed text/plain by the platform: take it off, or
    // put the server's own in its place.
    if (type === undefined) response.headers.delete("content-type");
    else response.headers.set("content-type", type);
    return response;
  });
}

/** The parse failure of a JSON read of `server`'s answer. */
async function parseFailure(
  server: { url: string },
  method: "GET" | "POST" = "GET",
): Promise<GrabTransportError> {
  const grab = createGrab(server.url, { retry: 0 });
  const [data, error, meta] = await grab(`${method} /things`);
  assertEquals(data, null);
  assertEquals(meta, { statusCode: 0 });
  assert(error?.name === "GrabTransportError", String(error));
  assertEquals(error.kind, "parse");
  return error;
}

Deno.test("a 200 HTML page read as JSON: the message names the status and the Content-Type, and how to see the body", async () => {
  await using server = answering(
    200,
    "<!doctype html><title>Sign in</title>",
    "text/html; charset=utf-8",
  );
  const error = await parseFailure(server);
  assertStringIncludes(error.message, "200 response");
  assertStringIncludes(error.message, '"text/html; charset=utf-8"');
  assertStringIncludes(error.message, 'responseType "text"');
  assertStringIncludes(error.message, `GET ${server.url}/things`);
  assert(error.cause instanceof SyntaxError);
});

Deno.test("a 201 body with no Content-Type that is not JSON: the message says there was none", async () => {
  await using server = answering(201, "created", undefined);
  const error = await parseFailure(server, "POST");
  assertStringIncludes(error.message, "201 response");
  assertStringIncludes(error.message, "no Content-Type");
});

Deno.test("HTML labelled application/json: the message names the label the server gave", async () => {
  await using server = answering(
    200,
    "<html>oops</html>",
    "application/json",
  );
  const error = await parseFailure(server);
  assertStringIncludes(error.message, '"application/json"');
});

Deno.test("the Content-Type a parse failure quotes is redacted and cut", async () => {
  const type = "text/html; from=https://user:pass@h.test/p?token=SECRET; x=" +
    "y".repeat(5_000);
  await using server = answering(200, "<html></html>", type);
  const error = await parseFailure(server);
  for (const text of [error.message, String(error), JSON.stringify(error)]) {
    assert(!text.includes("SECRET"), text.slice(0, 300));
    assert(!text.includes("pass@"), text.slice(0, 300));
  }
  assertStringIncludes(error.message, "(cut at 2000 characters)");
  assert(error.message.length < 3_000, `message: ${error.message.length}`);
});

Deno.test("a JSON:API read of an HTML page names its status and Content-Type too", async () => {
  await using server = answering(202, "<html>proxy</html>", "text/html");
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  const [, error] = await grab("GET /things");
  assert(error?.name === "GrabTransportError", String(error));
  assertEquals(error.kind, "parse");
  assertStringIncludes(error.message, "202 response");
  assertStringIncludes(error.message, '"text/html"');
});
