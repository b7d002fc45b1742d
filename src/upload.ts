/**
 * Upload progress: the request body counted as `fetch` reads it, where the
 * runtime can stream a request body; elsewhere one report at 0 before
 * sending and one at the end when the response head arrives.
 *
 * @module
 */

import type { HeaderRecord } from "./headers.ts";
import { bare, hopUrl, redirectInit, REDIRECTS } from "./redirect_hop.ts";
import type { Progress } from "./response_type.ts";

/** The piece of a body handed to `fetch` at a time. */
const SLICE = 64 * 1024;

type Report = (progress: Progress) => void;
type Send = "stream" | "whole" | "blob";

/** Where a redirect is followed from: the URL, the plain init, the request. */
interface FollowOptions {
  /** The URL that answered with the redirect. */
  from: string;
  /** The attempt's init with the body as given. */
  plain: RequestInit;
  /** The request the hooks saw, when there are hooks. */
  request: Request | undefined;
}
type EncodedInit = RequestInit & { headers: HeaderRecord };
/** One hop's counted stream: whether it was left or is due, how it ends. */
interface Hop {
  left: boolean;
  due: () => boolean;
  end?: () => void;
}

/**
 * The body of a request whose upload is reported, prepared once for all
 * its attempts, each sending a fresh counted stream of it: the bytes `fetch`
 * would send, a blob (the caller's, or a form's, which Deno reads its files
 * into), or a stream counted as it passes.
 */
export class Upload {
  #report: Report;
  #send: Send;
  #body: Blob | ArrayBuffer | undefined;
  #type: string | null = null;
  #thrown: { error: unknown } | undefined;
  // This attempt follows redirects itself; then its body was sent whole.
  #manual = false;
  #whole = false;
  #movedTo: string | undefined;
  // The end of this attempt's body was told: a redirect's resend is not.
  #ended = false;
  // The counted stream of this attempt's first hop, until it is left.
  #hop: Hop | undefined;

  private constructor(report: Report, send: Send) {
    this.#report = report;
    this.#send = send;
  }

  /**
   * Prepares `body` (replayable, or a stream sent once) for its attempts.
   * Unless `send` is "stream" it goes out whole (bytes as a "blob" on Node,
   * which cannot send an `ArrayBuffer` again to a 307's target): where a
   * `beforeRequest` hook may replace the request (a redirect then follows
   * what the hook made), and in a browser, which streams a request body only
   * over HTTP/2 or later and refuses it otherwise: told the start and end.
   */
  static async of(
    body: Blob | ReadableStream<Uint8Array> | Response,
    report: Report,
    send: Send,
  ): Promise<Upload> {
    const upload = new Upload(report, send);
    if (body instanceof Blob) {
      upload.#body = body;
      upload.#type = body.type === "" ? null : body.type;
    } else if (!(body instanceof ReadableStream)) {
      // Any other body, serialised as fetch would, with its media type (a
      // form's boundary included); a form's blob may refer to its files.
      upload.#type = body.headers.get("content-type");
      upload.#body = upload.#type?.startsWith("multipart/form-data")
        ? await body.blob()
        : await body.arrayBuffer();
    }
    return upload;
  }

  /** The size of a replayable body; `undefined` for a stream. */
  get #total(): number | undefined {
    const body = this.#body;
    return body instanceof Blob ? body.size : body?.byteLength;
  }

  /** The init of one attempt, its body counted as read until it is `due`. */
  init(init: EncodedInit, due: () => boolean): RequestInit {
    this.leave();
    this.#manual = false;
    this.#whole = false;
    this.#movedTo = undefined;
    this.#ended = false;
    const whole = this.#body;
    if (whole === undefined) {
      const body = init.body as ReadableStream<Uint8Array>;
      const hop: Hop = this.#hop = { left: false, due };
      return bare({ ...init, body: body.pipeThrough(this.#counter(hop)) });
    }
    let headers: HeaderRecord = init.headers;
    if (this.#type !== null && headers["content-type"] === undefined) {
      headers = { ...headers, "content-type": this.#type };
    }
    if (this.#send !== "stream") {
      this.#report({ loaded: 0, total: this.#total });
      this.#ended = this.#total === 0;
      this.#whole = true;
      // The bytes as the grab began, not as the caller has left them.
      if (whole instanceof Blob) return init;
      const body = this.#send === "blob" ? new Blob([whole]) : whole;
      return bare({ ...init, body, headers });
    }
    const hop: Hop = this.#hop = { left: false, due };
    const body = this.#slices(whole, init.signal ?? undefined, hop);
    const counted = bare({ ...init, body, headers, duplex: "half" as const });
    // A streamed body cannot follow a redirect: it is followed by sending
    // the body again as it was given (see `follow`).
    if (init.redirect === undefined || init.redirect === "follow") {
      counted.redirect = "manual";
      this.#manual = true;
    }
    return counted;
  }

  /** True when this attempt met a redirect that `fetch` would have followed. */
  redirected(response: Response): boolean {
    return this.#manual && REDIRECTS.has(response.status);
  }

  /**
   * The next hop of the redirects this attempt met, to `location`, which it
   * follows itself, as `fetch` would: the body as given (or none), sent
   * whole, its progress then reported at the end. As from `fetch`, a
   * location that is not a URL, or not an http(s) one (`data:`, `file:`,
   * `blob:`), is a network error, never a response.
   */
  follow(
    status: number,
    location: string,
    { from, plain, request }: FollowOptions,
  ): { url: string; init: RequestInit } {
    this.leave();
    const next = hopUrl(location, from);
    const init = redirectInit(status, next, from, plain, request);
    if (init.body !== undefined && this.#body !== undefined) {
      // The body as prepared, of the media type the headers may name: a
      // form serialised again would get another boundary.
      init.body = this.#body;
      const headers = init.headers as Headers;
      if (this.#type !== null && !headers.has("content-type")) {
        headers.set("content-type", this.#type);
      }
    }
    // The URL a response gives, as `fetch`'s does: with no fragment.
    this.#movedTo = next.href.split("#", 1)[0];
    this.#whole ||= init.body !== undefined;
    return { url: next.href, init };
  }

  /** Where this attempt's redirect led, when it followed one itself. */
  get movedTo(): string | undefined {
    return this.#movedTo;
  }

  /**
   * The response head arrived: the end, where the body was sent whole and
   * its end not told yet (a redirect that sent it again after it was
   * counted to its end is not told twice). True when the end was told.
   */
  sent(): boolean {
    const total = this.#total;
    if (!this.#whole || total === undefined || this.#ended) return false;
    this.#ended = true;
    this.#report({ loaded: total, total });
    return true;
  }

  /**
   * Ends the counted stream of this attempt, which is over (answered, or
   * failed): a `fetch` that reads on (Deno's sends the rest of a body that
   * the server answered without waiting for) is refused the rest, which then
   * neither goes out nor is reported. It fails at once, not at its next
   * chunk: a source that sends no more is cancelled, its connection closed.
   */
  leave(): void {
    const hop = this.#hop;
    this.#hop = undefined;
    if (hop === undefined) return;
    hop.left = true;
    hop.end?.();
  }

  /**
   * Ends the attempt's counted stream and throws what the callback threw
   * meanwhile: it rejects the grab before any retry is sent.
   */
  end(): void {
    this.leave();
    this.rethrow();
  }

  /** Throws what the callback threw while `fetch` read the body, if it did. */
  rethrow(): void {
    const thrown = this.#thrown;
    if (thrown !== undefined) throw thrown.error;
  }

  /** Reports without throwing into `fetch`: what it throws is kept. */
  #tell(progress: Progress): boolean {
    try {
      this.#report(progress);
      this.#ended = progress.loaded === progress.total;
      return true;
    } catch (error) {
      this.#thrown ??= { error };
      return false;
    }
  }

  /**
   * The body in slices, each read when `fetch` asks for it (a blob's own
   * stream may hand over all of it at once) and counted as it goes. It ends
   * with its attempt: a `fetch` that reads on after the signal reports
   * nothing to a grab that has settled.
   */
  #slices(
    whole: Blob | ArrayBuffer,
    signal: AbortSignal | undefined,
    hop: Hop,
  ): ReadableStream<Uint8Array> {
    const total = this.#total!;
    let at = 0;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        hop.end = () => controller.error(over());
        if (!this.#tell({ loaded: 0, total })) controller.error(callback());
      },
      pull: async (controller) => {
        if (at >= total) return controller.close();
        if (hop.due()) return controller.error(over());
        const end = Math.min(at + SLICE, total);
        const slice = new Uint8Array(
          await (whole instanceof Blob
            ? whole.slice(at, end).arrayBuffer()
            : whole.slice(at, end)),
        );
        if (signal?.aborted) return controller.error(signal.reason);
        if (hop.left) return controller.error(over());
        controller.enqueue(slice);
        at = end;
        if (!this.#tell({ loaded: at, total })) controller.error(callback());
      },
    }, { highWaterMark: 0 });
  }

  /** A stream body counted as it passes; its size is not known. */
  #counter(hop: Hop): TransformStream<Uint8Array, Uint8Array> {
    const total = undefined;
    let loaded = 0;
    return new TransformStream({
      start: (controller) => {
        // Failing both sides: `fetch` is refused the rest, the source cancelled.
        hop.end = () => controller.error(over());
        if (!this.#tell({ loaded, total })) controller.error(callback());
      },
      transform: (chunk, controller) => {
        if (hop.left || hop.due()) return controller.error(over());
        // A chunk that is not bytes is `fetch`'s to refuse, not to count.
        if (chunk instanceof Uint8Array) loaded += chunk.byteLength;
        if (!this.#tell({ loaded, total })) {
          controller.error(callback());
          return;
        }
        controller.enqueue(chunk);
      },
    });
  }
}

/** Why a counted body fails once its attempt is over, answered or not. */
function over(): TypeError {
  return new TypeError(
    "The request body is not sent on: the grab is done with its request",
  );
}

/** The reason a counted body fails with when its callback threw. */
const callback = () => new TypeError("The upload progress callback threw");
