// deno-lint-ignore-file no-console
/**
 * The benchmark's HTTP server, run as its own process by `run.ts` so that it
 * does not share an event loop with the clients. Serves one fixed JSON body
 * of about 200 bytes on every path but `/bodies/…`, prints its port on
 * stdout, and exits when its stdin closes.
 *
 * `GET /bodies/<bytes>` answers a larger text body ({@linkcode largeBody})
 * with its `Content-Length`, and `GET /bodies/<bytes>/chunked` the same bytes
 * as a stream of {@linkcode CHUNK_BYTES} chunks, without a length (chunked
 * transfer encoding), for each of {@linkcode LARGE_SIZES}.
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

/** The sizes in bytes of the large bodies under `/bodies/`: 64 KiB, 1 MiB. */
export const LARGE_SIZES = [64 * 1024, 1024 * 1024] as const;

/** The size of each chunk of a chunked large body. */
export const CHUNK_BYTES = 64 * 1024;

/** The media type of the large bodies (not one the server compresses). */
export const LARGE_TYPE = "application/octet-stream";

/**
 * A large body of exactly `size` bytes: CSV-like UTF-8 text, lines of about
 * 70 bytes, every fourth line with a two-byte and a three-byte character
 * (`é`, `漢`), padded with ASCII at the end. The same bytes every time.
 */
export function largeBody(size: number): Uint8Array<ArrayBuffer> {
  const encoder = new TextEncoder();
  const out = new Uint8Array(size);
  let at = 0;
  for (let i = 0;; i++) {
    const name = i % 4 === 0 ? `café ${i % 97} 漢` : `article ${i % 97}`;
    const line = encoder.encode(
      `${String(i).padStart(7, "0")},2026-11-23T05:00:00Z,${name},${
        (i * 7919) % 100_000
      },Ada Lovelace\n`,
    );
    if (at + line.byteLength > size) break;
    out.set(line, at);
    at += line.byteLength;
  }
  out.fill(0x2e, at, size); // "."
  return out;
}

if (import.meta.main) {
  const bytes = new TextEncoder().encode(BODY_TEXT);
  const headers = {
    "content-type": "application/json",
    "content-length": String(bytes.byteLength),
  };
  const large = new Map<string, () => Response>();
  for (const size of LARGE_SIZES) {
    const body = largeBody(size);
    const init = {
      headers: { "content-type": LARGE_TYPE, "content-length": String(size) },
    };
    large.set(`/bodies/${size}`, () => new Response(body, init));
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < size; at += CHUNK_BYTES) {
      chunks.push(body.subarray(at, at + CHUNK_BYTES));
    }
    large.set(
      `/bodies/${size}/chunked`,
      () =>
        new Response(ReadableStream.from(chunks), {
          headers: { "content-type": LARGE_TYPE },
        }),
    );
  }
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(port),
  }, (req) => {
    const url = req.url;
    const at = url.indexOf("/bodies/");
    const answer = at < 0 ? undefined : large.get(url.slice(at));
    return answer === undefined ? new Response(bytes, { headers }) : answer();
  });
  // Stop when the parent closes our stdin (or exits).
  for await (const _ of Deno.stdin.readable) {
    // Nothing is expected on stdin.
  }
  await server.shutdown();
}
