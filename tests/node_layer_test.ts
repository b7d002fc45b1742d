import { assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";

Deno.test("grab never reads Deno's Node globals, which load its Node layer", async () => {
  // Deno makes `process` and the other Node globals on their first read, at
  // the cost of a cold start's 10–20 ms: a Deno Deploy function using grab
  // must not pay it. The child wraps their getters and names each read
  // made by grab's own modules.
  const { read, outcomes } = await runChild<{
    read: string[];
    outcomes: string[];
  }>("./_node_layer_child.ts", ["--allow-net=127.0.0.1"]);
  assertEquals(outcomes, [
    "get: ok",
    "bytes: ok",
    "form: ok",
    "upload: ok",
    "status: 500",
    "timeout: timeout",
    "json-api: ok",
    "custom fetch: ok",
    "refused: network",
  ]);
  assertEquals(read, []);
});
