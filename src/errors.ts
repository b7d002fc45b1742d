/**
 * The three error classes. Messages never contain URL userinfo, query
 * strings or header values.
 *
 * @module
 */

import type {
  GrabErrorOptions,
  GrabTransportErrorOptions,
  TransportErrorKind,
  ValidationIssue,
} from "./error_types.ts";
import type { JsonApiError } from "./jsonapi/types.ts";
import { loggedView, transportView } from "./logged_view.ts";
import { loggedValue } from "./redact.ts";
import { errorOptions, onlyInherited, ownValue } from "./object.ts";

export type {
  GrabErrorOptions,
  GrabTransportErrorOptions,
  TransportErrorKind,
  ValidationIssue,
};

/**
 * A response arrived with a status outside 2xx.
 *
 * The message is the JSON:API errors' `detail ?? title` joined with `"; "`,
 * or `"<status> <statusText>: <METHOD> <origin+path>"`. The server's text in
 * it has every URL's query and userinfo taken out and is cut at 2,000
 * characters, saying so; `errors` and `body` keep it whole.
 *
 * @example Reading an HTTP error
 * ```ts
 * import createGrab from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [, error] = await grab("GET /users/1");
 * if (error?.name === "GrabError") console.log(error.statusCode, error.body);
 * ```
 */
export class GrabError extends Error {
  /** Always `"GrabError"`. */
  override readonly name = "GrabError" as const;
  /** HTTP status. */
  readonly statusCode: number;
  /**
   * Parsed JSON body, text for a non-JSON body, `null` for an empty one.
   * Not enumerable, as `errors` is not: what prints an error without asking
   * it (Node and Bun print an uncaught one so) shows its enumerable fields,
   * and a server's body often quotes the request's URL, token and all.
   */
  declare readonly body: unknown;
  /** JSON:API errors; present only when the body is a JSON:API error document. */
  declare readonly errors?: JsonApiError[];
  /** Request method. */
  readonly method: string;
  /** Request URL without userinfo or query. */
  readonly url: string;

  /**
   * Builds an HTTP error.
   *
   * @param message The message.
   * @param options Status, body, headers and request context.
   */
  constructor(message: string, options: GrabErrorOptions) {
    super(message, errorOptions(options));
    this.statusCode = options.statusCode;
    hidden(this, "body", options.body);
    if (!onlyInherited(options, "errors") && options.errors !== undefined) {
      hidden(this, "errors", options.errors);
    }
    HEADERS.set(this, options.headers);
    this.method = options.method;
    this.url = options.url;
  }

  /**
   * Response headers. A getter, not an own property: an error that is
   * logged does not show them (a `Location` or `Set-Cookie` may hold a
   * secret).
   */
  get headers(): Headers {
    return HEADERS.get(this)!;
  }

  /**
   * What `JSON.stringify` shows: the status, the request, and the body and
   * JSON:API errors with every URL's query string and userinfo taken out (a
   * server's error often quotes the request's URL, token and all). The
   * properties themselves keep what the server sent.
   */
  toJSON(): Record<string, unknown> {
    return loggedView(this, true);
  }

  /**
   * What Deno's inspector (and so `console.log`) shows: the stack, then
   * what {@linkcode GrabError.toJSON} shows. Keyed by the symbol the runtime
   * registers for it; elsewhere the method is never called.
   *
   * @param inspect The runtime's inspect function.
   * @param options Its options.
   */
  [Symbol.for("Deno.customInspect")](
    inspect: (value: unknown, options: unknown) => string,
    options: unknown,
  ): string {
    return `${this.stack} ${inspect(loggedView(this), options)}`;
  }

  /**
   * What Node's `util.inspect` (and so `console.log`) shows, as for Deno.
   *
   * @param depth The depth left for what it shows.
   * @param options Its options.
   * @param inspect Node's inspect function.
   */
  [Symbol.for("nodejs.util.inspect.custom")](
    depth: number,
    options: { depth?: number | null },
    inspect: (value: unknown, options: unknown) => string,
  ): string {
    // `null` is Node's "no limit"; any other depth counts down from here.
    const unlimited = options.depth === null;
    const inner = { ...options, depth: unlimited ? null : depth };
    return `${this.stack} ${inspect(loggedView(this), inner)}`;
  }
}

/**
 * The headers of each {@linkcode GrabError}. Not a `#private` field: that
 * would make the class nominal for TypeScript, and the results of a grab
 * made by another copy of the module (two versions in one program) would
 * not type-check where this copy's are expected (`orThrow`, `paginate`).
 */
const HEADERS = new WeakMap<GrabError, Headers>();

/**
 * No usable response: network failure, abort, timeout, unparseable or
 * oversized body, or a body failing the `schema`.
 *
 * @example Telling a timeout from a network failure
 * ```ts
 * import createGrab, { isGrabTransportError } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [, error] = await grab("GET /slow", { timeout: 1000 });
 * if (isGrabTransportError(error) && error.kind === "timeout") {
 *   console.log("gave up after 1 s");
 * }
 * ```
 */
export class GrabTransportError extends Error {
  /** Always `"GrabTransportError"`. */
  override readonly name = "GrabTransportError" as const;
  /** What went wrong. */
  readonly kind: TransportErrorKind;
  /** Request method. */
  readonly method: string;
  /** Request URL without userinfo or query. */
  readonly url: string;
  /**
   * The schema's issues, for kind `"schema"`; not enumerable, as a
   * `GrabError`'s `body` is not (an issue may quote the failed value).
   */
  declare readonly issues?: readonly unknown[];

  /**
   * Builds a transport error.
   *
   * @param message The message.
   * @param options Kind, request context, and the cause.
   */
  constructor(message: string, options: GrabTransportErrorOptions) {
    super(message, errorOptions(options));
    this.kind = options.kind;
    this.method = options.method;
    this.url = options.url;
    if (!onlyInherited(options, "issues") && options.issues !== undefined) {
      hidden(this, "issues", options.issues);
    }
  }

  /**
   * What `JSON.stringify` shows: the kind, the request, the cause, and the
   * schema's issues with every URL's query string and userinfo taken out (an
   * issue often quotes the value that failed, which may be the request's
   * URL). The properties themselves keep what the schema gave.
   */
  toJSON(): Record<string, unknown> {
    return transportView(this, true);
  }

  /**
   * What Deno's inspector (and so `console.log`) shows: the stack, then
   * what {@linkcode GrabTransportError.toJSON} shows.
   *
   * @param inspect The runtime's inspect function.
   * @param options Its options.
   */
  [Symbol.for("Deno.customInspect")](
    inspect: (value: unknown, options: unknown) => string,
    options: unknown,
  ): string {
    return `${this.stack} ${inspect(transportView(this), options)}`;
  }

  /**
   * What Node's `util.inspect` (and so `console.log`) shows, as for Deno.
   *
   * @param depth The depth left for what it shows.
   * @param options Its options.
   * @param inspect Node's inspect function.
   */
  [Symbol.for("nodejs.util.inspect.custom")](
    depth: number,
    options: { depth?: number | null },
    inspect: (value: unknown, options: unknown) => string,
  ): string {
    const inner = { ...options, depth: options.depth === null ? null : depth };
    return `${this.stack} ${inspect(transportView(this), inner)}`;
  }
}

/**
 * Sets a field that is not enumerable: read and written as any field, but
 * left out of what shows an error's enumerable fields as they are (an
 * uncaught error printed by Node or Bun, `Object.keys`, a spread), since
 * it holds what the server or a schema sent, unredacted.
 */
function hidden(error: Error, key: string, value: unknown): void {
  Object.defineProperty(error, key, {
    value,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

/**
 * The caller's input is wrong; raised before any request is sent, never
 * returned in the tuple.
 *
 * @example Catching a bad write body
 * ```ts
 * import createGrab, { isGrabValidationError } from "@grab/grab";
 * const grab = createGrab("https://api.example.com", { format: "json-api" });
 * try {
 *   await grab("POST /articles", { body: { title: "no type" } });
 * } catch (error) {
 *   if (isGrabValidationError(error)) console.log(error.issues);
 * }
 * ```
 */
export class GrabValidationError extends Error {
  /** Always `"GrabValidationError"`. */
  override readonly name = "GrabValidationError" as const;
  /** Every problem found. */
  readonly issues: ValidationIssue[];

  /**
   * Builds a validation error.
   *
   * @param message A summary.
   * @param issues Every problem found.
   * @param options Standard error options.
   */
  constructor(
    message: string,
    issues: ValidationIssue[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.issues = issues;
  }

  /**
   * What `JSON.stringify` shows: the name, the message (an error's own
   * `message` is not enumerable, so it would be left out), the issues, and
   * the exception of the caller's code they quote, if any, as a plain
   * object, redacted.
   */
  toJSON(): Record<string, unknown> {
    const view: Record<string, unknown> = {
      name: this.name,
      message: this.message,
      issues: this.issues,
    };
    const cause = ownValue(this, "cause");
    if (cause !== undefined) view.cause = loggedValue(cause, true);
    return view;
  }
}
