/**
 * What a network failure was, where the runtime says: a host name that did
 * not resolve, a connection refused, one closed before the answer, a proxy
 * that did not open a tunnel to the server. Told by
 * what Deno's hyper, Node's undici and Bun say of it (their messages and
 * codes, never the error's class); a browser says nothing, and the failure
 * keeps its plain message there. These failures are still retried: a name
 * server, a server restarting, a pooled connection or a proxy that could not
 * reach the server (its `502`, which Deno does not tell from a `403`) may
 * mend by then.
 *
 * @module
 */

import type { Said } from "./peer_failure.ts";

/** A host name that did not resolve. */
const UNRESOLVED = "the host name did not resolve: check the URL's host";

/** Node's and Bun's codes, then Deno's words, for each failure told. */
const TOLD: [RegExp, RegExp, string][] = [
  [
    /^(?:ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)$/,
    /dns error|failed to lookup address/,
    UNRESOLVED,
  ],
  [
    /^ECONNREFUSED$/,
    /Connection refused/,
    "the server refused the connection: nothing listens on that host and port",
  ],
  [
    /^(?:ECONNRESET|UND_ERR_SOCKET)$/,
    /connection closed before message completed|Connection reset by peer/,
    "the server closed the connection before it answered",
  ],
  [
    // Deno says only `unsuccessful tunnel`; Node's undici and Bun name the
    // proxy's status, which the cause keeps.
    /^ERR_PROXY_TUNNEL$/,
    /unsuccessful tunnel|Proxy response \(\d{3}\) !== 200/,
    "the proxy did not open a tunnel to the server (the cause has its status where the runtime says it)",
  ],
];

/**
 * A lookup that failed for a URL whose host is an address, which needs none:
 * the name was another's on the way, a proxy's (one `HTTP_PROXY` or
 * `HTTPS_PROXY` names, or an `HttpClient`'s), which the URL's host does not
 * mend.
 */
const PROXY_NAME =
  "a host name on the way did not resolve, though the URL's host is an address: " +
  "check the proxy's host in HTTP_PROXY, HTTPS_PROXY or the HttpClient's proxy.url";

/** An IPv4 address as the URL parser writes it, or an IPv6 one. */
const ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[\da-f:.]+\])$/i;

/**
 * What the network failure whose causes say `chain` was, for its message,
 * or `undefined` when they do not tell; `href` is the request's URL.
 */
export function networkSaid(
  chain: Said[],
  href?: string,
): string | undefined {
  for (const [code, words, told] of TOLD) {
    if (
      chain.some((said) => code.test(said.code) || words.test(said.message))
    ) {
      return told === UNRESOLVED && isAddress(href) ? PROXY_NAME : told;
    }
  }
  return undefined;
}

/** Whether `href`'s host is an IP address rather than a name. */
function isAddress(href: string | undefined): boolean {
  if (href === undefined) return false;
  try {
    return ADDRESS.test(new URL(href).hostname);
  } catch {
    return false;
  }
}
