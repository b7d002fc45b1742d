/**
 * Failures of `fetch` that the server's side of the connection makes and no
 * retry mends: a TLS certificate the runtime refuses, a port that does not
 * speak TLS to an `https` URL, an answer that is not HTTP/1.1, an HTTP/2
 * answer that breaks its protocol, a proxy on the way that wants credentials
 * the client did not give, a body that is not in the coding its
 * `Content-Encoding` names. Each is told by what the runtime says of it
 * (Deno's rustls, hyper and h2, Node's OpenSSL and llhttp, Bun's own codes),
 * never by the error's class.
 *
 * @module
 */

/** What one error in a failure's chain says: its message, stack and code. */
export interface Said {
  message: string;
  stack: string;
  /** Node's and Bun's `code` (`"CERT_HAS_EXPIRED"`), or `""`. */
  code: string;
}

/** The OpenSSL verification codes Node and Bun give a refused certificate. */
const CERTIFICATE_CODE =
  /^(?:ERR_TLS_CERT_ALTNAME_INVALID|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_[A-Z_]+)$/;

/**
 * A certificate refused: rustls (Deno) says `invalid peer certificate:
 * UnknownIssuer`, `Expired`, `certificate not valid for name …`.
 */
function certificateRefused(chain: Said[]): string | undefined {
  const refused = chain.some(({ message, code }) =>
    message.includes("invalid peer certificate") || CERTIFICATE_CODE.test(code)
  );
  if (!refused) return undefined;
  return "Cannot connect: the runtime refused the server's TLS certificate " +
    "(expired, issued for another host name, or by an authority it does not trust; the cause says which); " +
    "fix the server's certificate, or have the runtime trust its authority " +
    "(in Deno with --cert, or a custom fetch whose HttpClient has caCerts; in Node with NODE_EXTRA_CA_CERTS)";
}

/**
 * A port that answered a TLS handshake with something else, plain HTTP
 * most likely: rustls says `received corrupt message of type
 * InvalidContentType`, Node `ERR_SSL_WRONG_VERSION_NUMBER`, Bun `EPROTO`.
 */
function notTls(chain: Said[]): string | undefined {
  const plain = chain.some(({ message, code }) =>
    message.includes("received corrupt message") ||
    code === "ERR_SSL_WRONG_VERSION_NUMBER" || code === "EPROTO"
  );
  if (!plain) return undefined;
  return "Cannot connect: the server did not answer the TLS handshake, " +
    "so the port does not speak https; use http:// for it, or the port that serves https";
}

/**
 * An answer that is not HTTP/1.1: hyper (Deno) says `invalid HTTP version
 * parsed` (as it does for the TLS of an `http` URL sent to an https port),
 * `invalid HTTP header parsed`, `invalid HTTP status-code parsed`; Node's
 * llhttp gives an `HPE_` code, Bun `Malformed_HTTP_Response`.
 */
function notHttp(chain: Said[]): string | undefined {
  const malformed = chain.some(({ message, code }) =>
    /invalid HTTP [\w-]{1,20} parsed/.test(message) ||
    code.startsWith("HPE_") || code === "Malformed_HTTP_Response"
  );
  if (!malformed) return undefined;
  return "Cannot read the response: the server's answer is not valid HTTP/1.1 (the cause says what is wrong); " +
    "check that the URL's scheme and port are the server's (an http:// URL to an https port answers so), or fix the server";
}

/**
 * An HTTP/2 answer that Deno's h2 finds breaks the protocol (a malformed
 * head or frame: `connection error detected: unspecific protocol error
 * detected`, `stream error detected: …`), or a server that will not take the
 * request over HTTP/2 (`endpoint requires HTTP/1.1`). The same client speaks
 * the same HTTP/2 to a retry. A reset the server sends of its own (`stream
 * error received: unexpected internal error encountered`) is left to the
 * retry, which may mend it.
 */
const BROKEN_H2 =
  /error detected: (?:unspecific protocol error detected|frame with invalid size|unable to maintain the header compression context)|error received: endpoint requires HTTP\/1\.1/;

function notHttp2(chain: Said[]): string | undefined {
  if (!chain.some(({ message }) => BROKEN_H2.test(message))) return undefined;
  return "Cannot read the response: the server's HTTP/2 answer breaks the protocol (a malformed head or frame), " +
    "or the server wants the request over HTTP/1.1 (the cause says which); " +
    "fix the server, or speak HTTP/1.1 to it (in Deno, a custom fetch whose HttpClient has http2: false)";
}

/**
 * A proxy that wants credentials before it opens a tunnel to an `https`
 * server (`407`): Deno's hyper says `proxy authentication required`, Node's
 * undici `Proxy response (407) !== 200 when HTTP Tunneling` (under an
 * `AbortError` that no signal made), Bun `Proxy refused to open a tunnel:
 * 407 …`. The same client asks again without them, so no retry mends it.
 * Through a proxy, a plain `http` URL's `407` is a response, an HTTP error.
 */
function proxyAuthentication(chain: Said[]): string | undefined {
  const wanted = chain.some(({ message }) =>
    message.includes("proxy authentication required") ||
    /Proxy response \(407\)|open a tunnel: 407/.test(message)
  );
  if (!wanted) return undefined;
  return "Cannot connect: the proxy wants credentials (407 Proxy Authentication Required) before it opens a tunnel to the server; " +
    "give them to the HTTP client that connects through it (in Deno, the HttpClient's proxy.basicAuth, " +
    "or user:password@ in the HTTPS_PROXY address)";
}

/**
 * The message for a failure of the server's side of the connection that no
 * retry can mend, or `undefined`.
 */
export function peerFailure(chain: Said[]): string | undefined {
  return certificateRefused(chain) ?? notTls(chain) ?? headTooLarge(chain) ??
    notHttp(chain) ?? notHttp2(chain) ?? proxyAuthentication(chain) ??
    undecodable(chain) ?? overResponseSize(chain) ?? agentGaveUp(chain);
}

/**
 * An undici `RetryAgent` on the way that gave up on the server's answers (a
 * status it retries, such as a 503) after its own retries:
 * `UND_ERR_REQ_RETRY`. The caller chose that policy; grab's retries on top
 * would multiply the requests to a server that is asking for fewer.
 */
function agentGaveUp(chain: Said[]): string | undefined {
  if (!chain.some(({ code }) => code === "UND_ERR_REQ_RETRY")) return undefined;
  return "Cannot complete the request: the undici RetryAgent that fetch sends through gave up after its own retries of the server's answers " +
    "(the cause has the last status), and grab does not retry them again; raise the agent's maxRetries, or leave retries to grab's retry";
}

/**
 * A body larger than the `maxResponseSize` of the undici dispatcher a custom
 * `fetch` (or Node's, given a `dispatcher`) sends through: undici says
 * `UND_ERR_RES_EXCEEDED_MAX_SIZE`, at the head for a `Content-Length` over
 * it, or as the body breaks off. The server sends the same body again to a
 * retry, and the dispatcher cuts it again.
 */
function overResponseSize(chain: Said[]): string | undefined {
  if (!chain.some(({ code }) => code === "UND_ERR_RES_EXCEEDED_MAX_SIZE")) {
    return undefined;
  }
  return "Cannot read the response: its body is larger than the maxResponseSize of the undici dispatcher that fetch sends through; " +
    "raise the dispatcher's maxResponseSize, or leave the cap to grab's maxBodyBytes";
}

/**
 * Deno's words for a body its decoder refuses (a gzip header or check that
 * is wrong, a deflate or brotli stream that is not one), and workerd's for
 * gzip, each the whole message. Deno's `unexpected end of file`, a gzip cut
 * short, is left out: Rust says it of other reads too.
 */
const UNDECODABLE =
  /^(?:Invalid gzip header|CRC computed does not match|amount of bytes read does not match|deflate decompression error: .{1,200}|brotli error|Gzip decompression failed\.)$/;

/**
 * A body that is not in the coding its `Content-Encoding` names, which the
 * server sends again to a retry: Deno and workerd say so in words, Node's
 * undici gives zlib's `Z_DATA_ERROR` (brotli's `ERR__ERROR_FORMAT_…`) as
 * its cause, Bun codes it `ZlibError` or `BrotliDecompressionError`.
 */
function undecodable(chain: Said[]): string | undefined {
  const refused = chain.some(({ message, code }) =>
    UNDECODABLE.test(message) || code === "Z_DATA_ERROR" ||
    code.startsWith("ERR__ERROR_FORMAT_") || code === "ZlibError" ||
    code === "BrotliDecompressionError"
  );
  if (!refused) return undefined;
  return "Cannot read the response: its body is not in the coding its Content-Encoding header names " +
    "(the runtime could not decode it; the cause says how); fix the server";
}

/**
 * An answer whose head is larger than the runtime reads, each of its lines
 * valid: hyper (Deno) says `message head is too large` (past 100 header
 * lines; over HTTP/2, more CONTINUATION frames than its h2 reads:
 * `too_many_continuations`), Node's undici `UND_ERR_HEADERS_OVERFLOW` (past
 * 16 KiB); Bun reads it. The server sends the same head again to a retry.
 */
function headTooLarge(chain: Said[]): string | undefined {
  const large = chain.some(({ message, code }) =>
    message.includes("message head is too large") ||
    message.includes("too_many_continuations") ||
    code === "UND_ERR_HEADERS_OVERFLOW"
  );
  if (!large) return undefined;
  return "Cannot read the response: its head is larger than the runtime reads " +
    "(too many header lines, or too long ones); fix the server, or ask it for less (a large cookie or Link header)";
}
