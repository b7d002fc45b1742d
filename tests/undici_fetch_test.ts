/**
 * grab in Node with the `fetch` of the npm `undici` package, which users
 * hand it (`createGrab(base, { fetch: undici.fetch })`, with a dispatcher):
 * its `Request`, `Response` and errors are other classes than Node's own.
 * The child (`_undici_child.mjs`) is bundled with grab by esbuild, as a user
 * ships it, and run by Node against this test's server. `node-fetch`, which
 * reads no `Request` but its own either, runs here.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import { createGrab } from "../mod.ts";
import { nodeFetch } from "./_npm.ts";
import { startServer } from "./_server.ts";
import { available, bundleForNode, run } from "./_command.ts";

const VERSIONS = { v6: "undici@6.29.1", v7: "undici@7.30.2" };

const HAS_NODE = await available("node");

/** Where Deno keeps each version of undici, installed if it is not yet. */
async function undiciPaths(): Promise<Record<string, string>> {
  const paths: Record<string, string> = {};
  for (const [version, name] of Object.entries(VERSIONS)) {
    const info = JSON.parse(
      await run(Deno.execPath(), ["info", "--json", `npm:${name}`], {}),
    );
    paths[version] = info.npmPackages[name].localPath;
  }
  return paths;
}

Deno.test({
  name: "undici's fetch (v6, v7) in Node: hooks, a dispatcher's limits, " +
    "a RetryAgent" + (HAS_NODE ? "" : " (skipped: node is not on PATH)"),
  ignore: !HAS_NODE,
  async fn(t) {
    const large = "x".repeat(5_000);
    await using server = startServer({
      "/echo": (request, seen) =>
        Response.json({
          method: seen.method,
          hook: request.headers.get("x-hook"),
          type: request.headers.get("content-type"),
          body: seen.body,
        }),
      "/large": () => new Response(large),
      "/streamed": () =>
        new Response(ReadableStream.from([new TextEncoder().encode(large)])),
      "/busy": () => new Response("busy", { status: 503 }),
    });
    const [paths, code] = await Promise.all([
      undiciPaths(),
      bundleForNode("tests/_undici_child.mjs"),
    ]);
    const outcomes: Record<string, Record<string, unknown>> = JSON.parse(
      await run("node", ["--input-type=module"], {
        input: code,
        env: { GRAB_BASE: server.url, UNDICI_PATHS: JSON.stringify(paths) },
      }),
    );
    const sent = (path: string) =>
      server.requests.filter(({ url }) => url.pathname === path).length;
    const tooLarge = (path: string) => ({
      kind: "network",
      message:
        "Cannot read the response: its body is larger than the maxResponseSize of the undici dispatcher that fetch sends through; " +
        `raise the dispatcher's maxResponseSize, or leave the cap to grab's maxBodyBytes: GET ${server.url}${path}`,
    });
    for (const [version, outcome] of Object.entries(outcomes)) {
      await t.step(`${version}: a hook's Request is sent`, () => {
        // A hook makes grab hand fetch a Request, Node's own, which
        // undici's fetch read as the text "[object Request]", a URL that
        // did not parse, told as a redirect's bad Location.
        assertEquals(outcome.hookedGet, {
          data: { method: "GET", hook: "set", type: null, body: "" },
        });
        assertEquals(outcome.hookedPost, {
          data: {
            method: "POST",
            hook: "set",
            type: "application/json",
            body: '{"a":1}',
          },
        });
      });
      await t.step(
        `${version}: a body over the dispatcher's maxResponseSize is not retried`,
        () => {
          // It was retried, and told as a body that broke off.
          assertEquals(outcome.declaredTooLarge, tooLarge("/large"));
          assertEquals(outcome.streamedTooLarge, tooLarge("/streamed"));
        },
      );
      await t.step(
        `${version}: a RetryAgent that gave up says so, and is not retried again`,
        () => {
          // It said only that the network failed, though the server answered.
          assertEquals(outcome.retriedByAgent, {
            kind: "network",
            message:
              "Cannot complete the request: the undici RetryAgent that fetch sends through gave up after its own retries of the server's answers " +
              "(the cause has the last status), and grab does not retry them again; raise the agent's maxRetries, or leave retries to grab's retry: " +
              `GET ${server.url}/busy`,
          });
        },
      );
    }
    // Once for each version: the cap cuts the same body again.
    assertEquals(sent("/large"), 2);
    assertEquals(sent("/streamed"), 2);
    // The agent's 2 attempts, not repeated by grab's retries (which made
    // them 3 × 2), for each version.
    assertEquals(sent("/busy"), 4);
  },
});

Deno.test("node-fetch as fetch: a hook's Request is sent", async () => {
  await using server = startServer((request, seen) =>
    Response.json({
      method: seen.method,
      hook: request.headers.get("x-hook"),
      length: request.headers.get("content-length"),
      body: seen.body,
    })
  );
  const grab = createGrab(server.url, {
    fetch: nodeFetch as unknown as typeof fetch,
    hooks: {
      beforeRequest: (request) => request.headers.set("x-hook", "set"),
    },
  });
  // It read the Request as "[object Request]", "Only absolute URLs are
  // supported", and each attempt failed so.
  const [got, error] = await grab("POST /echo", { body: { a: 1 } });
  assertEquals(error, null);
  assertEquals(got, {
    method: "POST",
    hook: "set",
    length: "7",
    body: '{"a":1}',
  });
  assertEquals(server.requests.length, 1);
});
