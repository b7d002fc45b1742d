/**
 * Child process of network_said_test.ts, run with `--allow-net` for a host
 * name that never resolves (`.invalid`, RFC 6761), which the test runner's
 * permissions (127.0.0.1 alone) refuse before any lookup. Reports the
 * failure's kind and message.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

const grab = createGrab("http://grab-test.invalid", {
  retry: 0,
  timeout: 20_000,
});
const [, error] = await grab("GET /a");
await report({
  kind: error?.name === "GrabTransportError" ? error.kind : null,
  message: error?.message,
});
