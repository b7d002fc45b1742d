/**
 * Child process of failure_messages_test.ts: the first JSON:API grab of a
 * process, which waits for the JSON:API module within its timeout, times
 * out against a server that never answers. Reports the failure's kind and
 * message.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { silent, startFaultServer } from "./_faults.ts";
import { report } from "./_memory.ts";

await using server = startFaultServer(silent);
const grab = createGrab(server.url, {
  retry: 0,
  timeout: 60,
  format: "json-api",
});
const [, error] = await grab("GET /slow");
await report({
  kind: error?.name === "GrabTransportError" ? error.kind : null,
  message: error?.message,
});
