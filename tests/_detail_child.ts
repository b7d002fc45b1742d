/**
 * Child process of bounds_settle_test.ts: grabs error responses whose
 * JSON:API `detail` quotes a URL with a secret, followed by a megabyte of
 * text that a redaction trying a URL at every word, or counting brackets
 * again for each one it drops, would take hours over. It runs in its own
 * process so that the test can kill it if the redaction never ends: no
 * timer can bound a synchronous loop.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

const SECRET = "?token=s3cret";
const details: Record<string, string> = {
  // A word at every other character, none of them a URL's scheme.
  words: `at https://api.test/a${SECRET} ${"a.".repeat(500_000)}`,
  // A query ending in a megabyte of brackets it never opened.
  brackets: `(https://api.test/b${SECRET}${")".repeat(1_000_000)}`,
};
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => {
    const detail = details[new URL(request.url).pathname.slice(1)] ?? "";
    return Response.json({ errors: [{ status: "422", detail }] }, {
      status: 422,
    });
  },
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  timeout: 5_000,
  retry: 0,
});
const results: Record<string, unknown> = {};
for (const name of Object.keys(details)) {
  const [, error] = await grab(`GET /${name}`);
  results[name] = {
    status: error !== null && "statusCode" in error ? error.statusCode : null,
    redacted: error?.message.includes("api.test/") &&
      error.message.includes("?…"),
    leaks: error === null || error.message.includes("s3cret") ||
      JSON.stringify(error).includes("s3cret"),
  };
}
await server.shutdown();
await report(results);
