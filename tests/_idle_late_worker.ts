/**
 * A server of ticking live bodies in a Worker of its own: its event loop
 * keeps sending while the test's program holds its own, so the bytes arrive
 * during the hold, as they would from a server elsewhere.
 *
 * Asked `{ type, count, every }`, it answers every request with `count`
 * items, one every `every` ms (an SSE event for "text/event-stream", an
 * NDJSON line otherwise), and posts its port; asked `"stop"`, it shuts down
 * and posts `"stopped"`.
 *
 * @module
 */

interface Ask {
  type: string;
  count: number;
  every: number;
}

const encoder = new TextEncoder();
const timers = new Set<ReturnType<typeof setTimeout>>();
let server: Deno.HttpServer<Deno.NetAddr> | undefined;

function body(ask: Ask): ReadableStream<Uint8Array> {
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = (n: number) =>
    ask.type === "text/event-stream" ? `data: ${n}\n\n` : `${n}\n`;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const tick = () => {
        timers.delete(timer!);
        try {
          controller.enqueue(encoder.encode(frame(++sent)));
          if (sent === ask.count) return controller.close();
        } catch {
          return; // The client let go.
        }
        timer = setTimeout(tick, ask.every);
        timers.add(timer);
      };
      tick();
    },
    cancel() {
      clearTimeout(timer);
      timers.delete(timer!);
    },
  });
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Ask | "stop">) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async ({ data }) => {
  if (data === "stop") {
    timers.forEach(clearTimeout);
    await server?.shutdown();
    scope.postMessage("stopped");
    return;
  }
  const ask = data;
  server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body(ask), { headers: { "content-type": ask.type } }),
  );
  scope.postMessage(server.addr.port);
};
