import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { type GrabOptions, GrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";

/** Retry options that count the retries made, each at once. */
function counted(): { retry: GrabOptions["retry"]; made: () => number } {
  let made = 0;
  return {
    retry: {
      limit: 2,
      backoff: () => {
        made++;
        return 0;
      },
    },
    made: () => made,
  };
}

Deno.test("a port the Fetch standard blocks is named, and not retried", async (t) => {
  await using server = startServer({
    "/moved": () =>
      new Response(null, {
        status: 302,
        headers: { location: "http://127.0.0.1:6000/elsewhere" },
      }),
  });

  await t.step("the base address's port", async () => {
    const { retry, made } = counted();
    const grab = createGrab("http://127.0.0.1:6000", { retry });
    const [data, error] = await grab("GET /item");
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "network");
    assert(error.message.includes("blocks port 6000"), error.message);
    assert(error.message.includes("another port"), error.message);
    assertEquals(made(), 0, "a blocked port was retried");
  });

  await t.step("a port a redirect leads to", async () => {
    const { retry, made } = counted();
    const grab = createGrab(server.url, { retry });
    const [, error] = await grab("GET /moved");
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "network");
    assert(error.message.includes("blocks port 6000"), error.message);
    assertEquals(made(), 0);
    assertEquals(server.requests.length, 1);
  });

  await t.step("as Node's fetch refuses it, the port not named", async () => {
    // undici: `fetch failed`, caused by `bad port`.
    const { retry, made } = counted();
    const grab = createGrab("http://127.0.0.1:6000", {
      retry,
      fetch: () =>
        Promise.reject(
          new TypeError("fetch failed", { cause: new Error("bad port") }),
        ),
    });
    const [, error] = await grab("GET /item");
    assertInstanceOf(error, GrabTransportError);
    assert(error.message.includes("blocks its port"), error.message);
    assertEquals(made(), 0);
  });
});

Deno.test("a refused connection on another port is still retried as the network's", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const { retry, made } = counted();
  const grab = createGrab(`http://127.0.0.1:${port}`, { retry });
  const [, error] = await grab("GET /item");
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "network");
  assert(error.message.includes("the network failed"), error.message);
  assertEquals(made(), 2);
});
