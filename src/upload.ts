/**
 * Upload progress: the request body counted as `fetch` reads it, where the
 * runtime can stream a request body; elsewhere one report at 0 before
 * sending and one at the end when the response head arrives.
 *
 * @module
 */

import type { HeaderRecord } from "./headers.ts";
import type { Progress } from "./response_type.ts";

/** The piece of the body handed to `fetch` at a time. */
const SLICE = 64 * 1024;

type Report = (progress: Progress) => void;

/**
 * The body of a request whose upload is reported, prepared once for all
 * its attempts: a replayable body is read into bytes, each attempt sends a
 * fresh counted stream of them.
 */
export class Upload {
  #report: Report;
  #bytes: Uint8Array | undefined;
  #type: string | null = null;
  #streams: boolean;
  #thrown: { error: unknown } | undefined;

  private constructor(report: Report, streams: boolean) {
    this.#report = report;
    this.#streams = streams;
  }

  /** Prepares `body` (replayable, or a stream sent once) for its attempts. */
  static async of(body: BodyInit, report: Report): Promise<Upload> {
    const upload = new Upload(report, streamsRequests());
    if (!(body instanceof ReadableStream)) {
      // A Response serialises any body as fetch would, with its media type
      // (a form's boundary included).
      const source = new Response(body);
      upload.#type = source.headers.get("content-type");
      upload.#bytes = new Uint8Array(await source.arrayBuffer());
    }
    return upload;
  }

  /** The init of one attempt, its body counted as it is read. */
  init(init: RequestInit & { headers: HeaderRecord }): RequestInit {
    const bytes = this.#bytes;
    if (bytes === undefined) {
      const body = init.body as ReadableStream<Uint8Array>;
      return { ...init, body: body.pipeThrough(this.#counter()) };
    }
    if (!this.#streams) {
      this.#call({ loaded: 0, total: bytes.byteLength });
      return init;
    }
    let headers: HeaderRecord = init.headers;
    if (this.#type !== null && headers["content-type"] === undefined) {
      headers = { ...headers, "content-type": this.#type };
    }
    const body = this.#slices(bytes);
    return { ...init, body, headers, duplex: "half" } as RequestInit;
  }

  /** The response head arrived: the end, where nothing was counted. */
  sent(): void {
    const bytes = this.#bytes;
    if (bytes !== undefined && !this.#streams) {
      this.#call({ loaded: bytes.byteLength, total: bytes.byteLength });
    }
  }

  /** Throws what the callback threw while `fetch` read the body, if it did. */
  rethrow(): void {
    const thrown = this.#thrown;
    if (thrown !== undefined) throw thrown.error;
  }

  #call(progress: Progress): void {
    this.#report(progress);
  }

  /** Reports without throwing into `fetch`: what it throws is kept. */
  #tell(progress: Progress): boolean {
    try {
      this.#report(progress);
      return true;
    } catch (error) {
      this.#thrown ??= { error };
      return false;
    }
  }

  #slices(bytes: Uint8Array): ReadableStream<Uint8Array> {
    const total = bytes.byteLength;
    let at = 0;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        if (!this.#tell({ loaded: 0, total })) controller.error(CALLBACK);
      },
      pull: (controller) => {
        if (at >= total) return controller.close();
        const end = Math.min(at + SLICE, total);
        controller.enqueue(bytes.subarray(at, end));
        at = end;
        if (!this.#tell({ loaded: at, total })) controller.error(CALLBACK);
      },
    }, { highWaterMark: 0 });
  }

  #counter(): TransformStream<Uint8Array, Uint8Array> {
    let loaded = 0;
    return new TransformStream({
      transform: (chunk, controller) => {
        loaded += chunk.byteLength;
        if (!this.#tell({ loaded, total: undefined })) {
          controller.error(CALLBACK);
          return;
        }
        controller.enqueue(chunk);
      },
    });
  }
}

/** The reason a counted body fails with when its callback threw. */
const CALLBACK = new TypeError("The upload progress callback threw");

/**
 * True where `fetch` can stream a request body over any connection. A
 * browser streams one only over HTTP/2 or later, and refuses it otherwise,
 * so browsers (their user agents all start `Mozilla/`) are told the start
 * and the end only.
 */
function streamsRequests(): boolean {
  const agent = (globalThis as { navigator?: { userAgent?: unknown } })
    .navigator?.userAgent;
  return !(typeof agent === "string" && agent.startsWith("Mozilla/"));
}
