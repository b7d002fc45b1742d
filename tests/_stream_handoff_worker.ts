/**
 * A Worker that is handed a live `"stream"` body and reads it as asked:
 * `{ stream, chunks, then }` reads `chunks` chunks (all of them when
 * `Infinity`), then cancels (`then: "cancel"`) or goes on to the end or the
 * failure (`then: "end"`), and posts what it saw.
 *
 * @module
 */

interface Ask {
  stream: ReadableStream<Uint8Array>;
  chunks: number;
  then: "cancel" | "end";
}

/** The Worker's own scope, which the checker takes for a window's. */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Ask>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async (event) => {
  const { stream, chunks, then } = event.data;
  const reader = stream.getReader();
  let bytes = 0;
  let read = 0;
  try {
    while (read < chunks) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      read++;
      scope.postMessage({ read, bytes });
    }
    if (then === "cancel") await reader.cancel("the worker is done");
    else {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
      }
    }
    scope.postMessage({ done: true, bytes });
  } catch (error) {
    const { name, message, kind } = error as Error & { kind?: string };
    scope.postMessage({ failed: { name, message, kind }, bytes });
  }
};
