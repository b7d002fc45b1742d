/**
 * For the split tests: a body cut into chunks, and a server that sends
 * them one per pull, a turn of the event loop apart, whose disposal waits
 * for every wait it began.
 *
 * @module
 */

// The server's waits between chunks, awaited before a test ends so that no
// timer outlives it when grab cancels a body mid-way.
const waits = new Set<Promise<void>>();

/** A server that sends `chunks` of the body one per pull, as they come. */
export function chunkServer(
  type: string,
  body: () => Uint8Array[],
): AsyncDisposable & { addr: Deno.NetAddr } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => {
      const chunks = body();
      let i = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (i === chunks.length) return controller.close();
          controller.enqueue(chunks[i++]!);
          // A turn of the event loop so that chunks tend to go out apart.
          const wait = new Promise<void>((resolve) => setTimeout(resolve, 0));
          waits.add(wait);
          await wait;
          waits.delete(wait);
        },
      });
      return new Response(stream, { headers: { "content-type": type } });
    },
  );
  return {
    addr: server.addr,
    async [Symbol.asyncDispose]() {
      // A pull can start a wait while the server shuts down (a body grab
      // cancelled is let go by the server only later), so the waits are
      // awaited after the shutdown, until none is left.
      await server.shutdown();
      while (waits.size > 0) await Promise.all(waits);
    },
  };
}

/** `bytes` cut at `cuts` (indices in any order, repeats allowed). */
export function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))]
    .sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) out.push(bytes.slice(from, cut));
    from = cut;
  }
  return out;
}
