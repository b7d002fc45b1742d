/**
 * `createGrab`: binds factory defaults and returns the grab callable, which
 * resolves its options, runs one exchange of the endpoint's {@linkcode Call}
 * and decodes the outcome into a tuple.
 *
 * @module
 */

import { Call, exchange, templateOf } from "./call.ts";
import { withCodec } from "./codec_wait.ts";
import { validationError } from "./validation_error.ts";
import type { GrabValidationError } from "./errors.ts";
import { type Codec, codecFor, decodeOutcome } from "./format.ts";
import type { GrabCallOptions } from "./call_options.ts";
import type { GrabOptions } from "./options.ts";
import { type Resolved, resolveFactory, resolveOptions } from "./resolve.ts";
import { NO_OPTIONS } from "./read_options.ts";
import { trustedOriginSet } from "./trusted_origins.ts";
import { baseText, type UrlTemplate } from "./url.ts";
import type { FactoryType, Grab } from "./grab_types.ts";
import { type GrabResult, type SendOutcome, TRANSPORT_META } from "./result.ts";
import type { Deadline } from "./deadline.ts";
import { owns } from "./object.ts";

/**
 * Marks call options as bound for an origin nobody named (a next link that
 * `paginate` follows elsewhere): the factory's headers and hooks stay home.
 * A registered symbol, so that a grab of another copy of the module (two
 * versions in one program or bundle) knows the mark `paginate` sets; the
 * mark only takes trust away.
 * @internal
 */
export const FOREIGN: unique symbol = Symbol.for("@grab/grab.foreign");

/**
 * Set by `paginate` on the options of each page: a function told the format
 * the page is read in, the factory's or the call's, which `paginate` is not
 * given. In JSON:API mode the next link is in the document, which a page
 * read as text, bytes or a blob holds unparsed. Registered, as `FOREIGN` is.
 * @internal
 */
export const TELL_FORMAT: unique symbol = Symbol.for("@grab/grab.tellFormat");

/**
 * How deep grabs may nest, each started by the one before it before that
 * one returned: a `beforeRequest` hook (or a header function) that grabs
 * with its own factory starts itself again, at once, without end. Deeper
 * than this, the grab is refused, before the stack runs out; the stack
 * overflow would leave grabs half begun, their rejections unhandled.
 */
const NESTED_LIMIT = 32;

/** Grabs started and not yet returned, each within the one before. */
let nested = 0;

const CALL_CACHE_LIMIT = 1_000;
const CALL_CACHE_BYTES = 1024 * 1024;

/**
 * Creates a grab callable with a base address and default options.
 *
 * @typeParam O The factory's options; a literal `responseType` among them
 * types `data` when a call does not give its own.
 * @param baseURL The base address for relative targets; its path (a `:name`
 * in it included: only the endpoint's are parameters) and query are kept. A
 * path (`"/api"`) is resolved against the page's (or worker's) location.
 * @param options Defaults for every grab; each call may override them.
 * @returns The grab callable.
 * @throws {GrabValidationError} when the base address is not an http(s) URL,
 * holds credentials, a static header has CR, LF or NUL, or an option is not
 * one grab takes or has a value it refuses (`timout`, `timeout: 0`).
 *
 * @example A first grab
 * ```ts
 * import createGrab from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [user, error, meta] = await grab("GET /users/:id", { params: { id: 1 } });
 * if (error) console.error(error.message);
 * else console.log(meta.statusCode, user);
 * ```
 */
export function createGrab<const O extends GrabOptions = GrabOptions>(
  baseURL?: string | URL,
  options?: O | null,
): Grab<FactoryType<O>> {
  const checked = resolveFactory(options ?? {});
  // A URL object is read once, here: the caller may change it afterwards,
  // and the endpoints parsed before and after would disagree.
  const base = baseText(baseURL);
  // Resolving a dummy target validates the base address once, up front.
  const baseOrigin = base === undefined
    ? undefined
    : templateOf(new Call("GET /", base)).origin;
  const trusted = trustedOriginSet(checked.options.trustedOrigins);
  const trusts = (origin: string) =>
    baseOrigin === undefined || origin === baseOrigin || trusted.has(origin);
  const calls = endpointCache(base, trusts);
  // Its hooks after a request is sent go only where its headers go.
  const factory = baseOrigin === undefined ? checked : { ...checked, trusts };

  function grab(
    endpoint: string,
    given?: GrabCallOptions | null,
  ): Promise<GrabResult<unknown>> {
    // Not an async function: the work before the request is done here, at
    // once, and only the exchange is waited for.
    if (nested >= NESTED_LIMIT) return Promise.reject(tooNested());
    nested++;
    try {
      const options = given ?? NO_OPTIONS;
      const { call, trusted } = calls(endpoint);
      const foreign = markOf(options, FOREIGN) === true;
      const resolved = resolveOptions(factory, options, trusted && !foreign);
      if (Array.isArray(resolved)) {
        throw validationError(resolved, {
          method: call.method,
          url: templateOf(call).url,
          where: "the options",
        });
      }
      // `paginate` asks the format of a page, to read its next link.
      const tellFormat = markOf(options, TELL_FORMAT);
      if (typeof tellFormat === "function") tellFormat(resolved.format);
      // The JSON codec is at hand; only the JSON:API one may be loading.
      const loading = codecFor(resolved.format);
      if (loading instanceof Promise) {
        return withCodec(call.method, templateOf(call), resolved, loading).then(
          (loaded) =>
            owns(loaded, "failed")
              ? [null, loaded.failed.error, TRANSPORT_META]
              : grabWith(call, loaded.resolved, loaded.codec),
        );
      }
      return grabWith(call, resolved, loading);
    } catch (error) {
      return Promise.reject(error);
    } finally {
      nested--;
    }
  }

  return grab as Grab<FactoryType<O>>;
}

/** The caller's mistake, found before any request: a validation error. */
function tooNested(): GrabValidationError {
  return validationError([{
    path: "",
    message:
      `Cannot start the grab: ${NESTED_LIMIT} grabs are already nested, each started by a hook or header function of the one before; skip the grab's own request in the hook, or make it with a factory without that hook`,
  }]);
}

/**
 * One exchange decoded into the tuple, its deadline disposed at the end.
 * Throws what `exchange` throws (a `GrabValidationError`) at once.
 */
function grabWith(
  call: Call,
  resolved: Resolved,
  codec: Codec,
): Promise<GrabResult<unknown>> {
  const { outcome, deadline } = exchange(call, resolved, codec);
  // Bound, not a closure: a `GrabError` made while decoding keeps the frames
  // of its stack, and a closure's frame would keep the grab's options (the
  // caller's body, hooks and signal) for as long as the caller keeps it.
  return outcome.then(
    settle.bind(undefined, resolved, codec, deadline),
    (error: unknown) => {
      deadline.dispose();
      throw error;
    },
  );
}

/** The settled outcome decoded, its deadline disposed at the end. */
function settle(
  resolved: Resolved,
  codec: Codec,
  deadline: Deadline,
  settled: SendOutcome,
): GrabResult<unknown> | Promise<GrabResult<unknown>> {
  let decoded;
  try {
    decoded = decodeOutcome(settled, resolved, codec, deadline);
  } catch (error) {
    deadline.dispose();
    throw error;
  }
  // Only a schema's check is waited for, within the deadline.
  if (decoded instanceof Promise) {
    return decoded.finally(() => deadline.dispose());
  }
  deadline.dispose();
  return decoded;
}

/**
 * What `paginate` set under `mark` (`FOREIGN`, `TELL_FORMAT`) on the
 * options of a page, or `undefined`. Options that cannot be read at all (a
 * revoked `Proxy`) are refused when they are resolved.
 */
function markOf(options: object, mark: symbol): unknown {
  try {
    return (options as Record<symbol, unknown>)[mark];
  } catch {
    return undefined;
  }
}

/**
 * About what an endpoint's entry keeps, in bytes, measured in V8 and
 * rounded up: its text and URL (two bytes a character at most), the call
 * and its parsed URL, and each path segment and parameter apart, which
 * weigh far more than their text (1,000 `/:a` in 3 KB keep about 120 KB).
 */
function entrySize(
  endpoint: string,
  { url, pieces, params }: UrlTemplate,
): number {
  return 2 * (endpoint.length + url.href.length) + 1024 +
    64 * pieces.length + 128 * params.length;
}

/** A parsed endpoint and whether the factory trusts its origin. */
interface Entry {
  call: Call;
  trusted: boolean;
}

/**
 * Parses each endpoint once. The cache is bounded in bytes as well as in
 * entries, so a program that grabs ever-new long URLs holds little; an
 * endpoint too long to be worth keeping is parsed each time.
 */
function endpointCache(
  baseURL: string | URL | undefined,
  trusts: (origin: string) => boolean,
): (endpoint: string) => Entry {
  const calls = new Map<string, Entry>();
  let bytes = 0;
  return (endpoint) => {
    let entry = calls.get(endpoint);
    if (entry !== undefined) return entry;
    const call = new Call(endpoint, baseURL);
    const template = templateOf(call);
    entry = { call, trusted: trusts(template.url.origin) };
    const size = entrySize(endpoint, template);
    if (size > CALL_CACHE_BYTES / 64) return entry;
    if (calls.size >= CALL_CACHE_LIMIT || bytes + size > CALL_CACHE_BYTES) {
      calls.clear();
      bytes = 0;
    }
    calls.set(endpoint, entry);
    bytes += size;
    return entry;
  };
}
