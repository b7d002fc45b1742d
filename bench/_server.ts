// deno-lint-ignore-file no-console
/**
 * The benchmark's HTTP server, run as its own process by `run.ts` so that it
 * does not share an event loop with the clients. Serves one fixed JSON body
 * of about 200 bytes on every path, prints its port on stdout, and exits when
 * its stdin closes.
 *
 * @module
 */

/** The body every request gets: a fixed JSON object of about 200 bytes. */
export const BODY_OBJECT = {
  id: 4711,
  type: "articles",
  title: "Benchmarking an HTTP client",
  published: true,
  tags: ["deno", "http", "bench"],
  author: { id: 7, name: "Ada Lovelace", handle: "@ada" },
  stats: { views: 1234, likes: 56 },
};

/** The body as text. */
export const BODY_TEXT = JSON.stringify(BODY_OBJECT);

if (import.meta.main) {
  const bytes = new TextEncoder().encode(BODY_TEXT);
  const headers = {
    "content-type": "application/json",
    "content-length": String(bytes.byteLength),
  };
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(port),
  }, () => new Response(bytes, { headers }));
  // Stop when the parent closes our stdin (or exits).
  for await (const _ of Deno.stdin.readable) {
    // Nothing is expected on stdin.
  }
  await server.shutdown();
}
