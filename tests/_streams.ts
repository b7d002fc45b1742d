/**
 * Fixtures for live bodies: a server route whose body the test writes piece
 * by piece, and a body that sends its pieces one turn of the event loop
 * apart, so the client sees them as separate chunks.
 *
 * @module
 */

import { startServer, type TestServer } from "./_server.ts";

const encoder = new TextEncoder();

/** A body the test controls: write, close, break off; and whether it was cancelled. */
export interface Tap {
  readonly body: ReadableStream<Uint8Array>;
  write(text: string | Uint8Array): void;
  close(): void;
  /** Breaks the connection off mid-body. */
  fail(): void;
  /** Resolves when the client has let go of the body. */
  readonly cancelled: Promise<void>;
  readonly isCancelled: boolean;
}

/** A body the test writes to as it goes. */
export function tap(): Tap {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let isCancelled = false;
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      isCancelled = true;
      onCancel();
    },
  });
  const guard = (action: () => void) => {
    try {
      action();
    } catch {
      // The client let go already.
    }
  };
  return {
    body,
    write: (text) =>
      guard(() =>
        controller.enqueue(
          typeof text === "string" ? encoder.encode(text) : text,
        )
      ),
    close: () => guard(() => controller.close()),
    fail: () =>
      guard(() =>
        controller.error(
          new Error("the test server breaks this body off on purpose"),
        )
      ),
    cancelled,
    get isCancelled() {
      return isCancelled;
    },
  };
}

/** A body that sends `parts` one macrotask apart, then ends. */
export function paced(
  parts: (string | Uint8Array)[],
): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (at === parts.length) return controller.close();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const part = parts[at++]!;
      controller.enqueue(
        typeof part === "string" ? encoder.encode(part) : part,
      );
    },
  });
}

/** The bytes of `text` one by one. */
export function bytewise(text: string): Uint8Array[] {
  return [...encoder.encode(text)].map((byte) => new Uint8Array([byte]));
}

/** Waits (bounded) until a server has handed out `count` taps; the last. */
export async function tapped(taps: Tap[], count: number): Promise<Tap> {
  for (let turn = 0; taps.length < count; turn++) {
    if (turn > 2_000) throw new Error("the server was never asked");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return taps[count - 1]!;
}

/** `bytes` in chunks of `size`. */
export function pieces(bytes: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.byteLength; i += size) {
    chunks.push(bytes.subarray(i, i + size));
  }
  return chunks;
}

/** `bytes` cut at each of `cuts` (taken modulo its length plus one). */
export function cutAt(
  bytes: Uint8Array,
  cuts: readonly number[],
): Uint8Array[] {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))]
    .sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  return chunks;
}

/** A Standard Schema that takes numbers and refuses anything else. */
export const NUMBERS = {
  "~standard": {
    version: 1 as const,
    vendor: "test",
    validate: (value: unknown) =>
      typeof value === "number"
        ? { value }
        : { issues: [{ message: "not a number" }] },
  },
};

/**
 * A stream body of `chunks` chunks of 8 bytes (without end when `Infinity`), and
 * whether its source was cancelled, as a file's or a socket's would be.
 */
export function watchedSource(chunks = Infinity): {
  body: ReadableStream<Uint8Array>;
  cancelled: Promise<void>;
  readonly isCancelled: boolean;
} {
  const cancelled = Promise.withResolvers<void>();
  let isCancelled = false;
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled++ < chunks) controller.enqueue(new Uint8Array(8));
      else controller.close();
    },
    cancel() {
      isCancelled = true;
      cancelled.resolve();
    },
  });
  return {
    body,
    cancelled: cancelled.promise,
    get isCancelled() {
      return isCancelled;
    },
  };
}

/** A server whose every body is the next tap the test writes to. */
export function tapServer(type: string): TestServer & { taps: Tap[] } {
  const taps: Tap[] = [];
  const server = startServer(() => {
    const next = tap();
    taps.push(next);
    return new Response(next.body, { headers: { "content-type": type } });
  });
  return Object.assign(server, { taps });
}
