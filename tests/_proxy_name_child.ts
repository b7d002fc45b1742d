/**
 * Child process of proxy_test.ts: grabs an address (`127.0.0.1`) over
 * `http` and `https` through the proxy that `HTTP_PROXY` and `HTTPS_PROXY`
 * name, one whose host name never resolves (`.invalid`, RFC 6761), which the
 * test runner's permissions (127.0.0.1 alone) refuse before any lookup.
 * Reports each failure's kind and message.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

// Set before the first fetch, which reads them.
Deno.env.set("HTTP_PROXY", "http://grab-proxy.invalid:3128");
Deno.env.set("HTTPS_PROXY", "http://grab-proxy.invalid:3128");

const seen = [];
for (const origin of ["http://127.0.0.1:8080", "https://127.0.0.1:8443"]) {
  const grab = createGrab(origin, { retry: 0, timeout: 20_000 });
  const [, error] = await grab("GET /items");
  seen.push({
    kind: error?.name === "GrabTransportError" ? error.kind : null,
    message: error?.message,
  });
}
await report(seen);
