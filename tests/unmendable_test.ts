import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import { counted } from "./_counted_retry.ts";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

/** A body of `text` as a stream. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
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

Deno.test("a stream body that meets a redirect says it could not follow it", async () => {
  await using server = startServer({
    "/moved/:code": (_request, seen) =>
      new Response(null, {
        status: Number(seen.url.pathname.split("/")[2]),
        headers: { location: "/final" },
      }),
    "/final": (_request, seen) => json({ got: seen.body }),
  });
  const grab = createGrab(server.url);
  for (const code of [307, 308]) {
    for (const given of [{}, { onUploadProgress: () => {} }]) {
      const [data, error] = await grab("POST /moved/:code", {
        params: { code },
        body: streamOf("hello"),
        ...given,
      });
      assertEquals(data, null);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assert(
        error.message.includes("Cannot follow the redirect"),
        error.message,
      );
      assert(error.message.includes("bytes or a Blob"), error.message);
    }
  }
  // A 303 turns it into a GET without the body, which fetch follows.
  const [data, error] = await grab("POST /moved/:code", {
    params: { code: 303 },
    body: streamOf("hello"),
  });
  assertEquals(error, null);
  assertEquals(data, { got: "" });
  // Bytes are sent again.
  const [sent] = await grab("POST /moved/:code", {
    params: { code: 307 },
    body: new TextEncoder().encode("hello"),
  });
  assertEquals(sent, { got: "hello" });
});

Deno.test("Node's refusal of a stream body at a redirect is told too", async () => {
  // undici rejects with `fetch failed`, caused by an empty error made in its
  // redirect step; only the stack says where.
  const cause = new Error();
  cause.stack = "Error\n    at makeNetworkError (undici)\n" +
    "    at httpRedirectFetch (undici)";
  const grab = createGrab("http://127.0.0.1:1", {
    fetch: () => Promise.reject(new TypeError("fetch failed", { cause })),
  });
  const [, error] = await grab("PUT /item", { body: streamOf("hello") });
  assertInstanceOf(error, GrabTransportError);
  assert(error.message.includes("Cannot follow the redirect"), error.message);
  // A body of bytes that failed alike is not said to be a stream.
  const [, other] = await grab("PUT /item", { body: "hello", retry: 0 });
  assertInstanceOf(other, GrabTransportError);
  assert(other.message.includes("the network failed"), other.message);
});

Deno.test("a custom fetch that returns a used response is told so, and not retried", async (t) => {
  await using server = startServer(() => json({ id: 1 }));
  await t.step("another status is a GrabError, its body null", async () => {
    for (const status of [404, 503]) {
      const once = json({ id: 1 }, { status });
      const grab = createGrab(server.url, {
        retry: 0,
        fetch: () => Promise.resolve(once),
      });
      await grab("GET /item");
      const [data, error] = await grab("GET /item");
      assertEquals(data, null);
      assertInstanceOf(error, GrabError);
      assertEquals(error.statusCode, status);
      assertEquals(error.body, null);
    }
  });

  for (const status of [200, 201]) {
    await t.step(`status ${status}`, async () => {
      // A mock that hands out one Response for every call.
      const once = json({ id: 1 }, { status });
      let calls = 0;
      const { retry, made } = counted();
      const grab = createGrab(server.url, {
        retry,
        fetch: () => {
          calls++;
          return Promise.resolve(once);
        },
      });
      await grab("GET /item", { retry: 0 });
      const [data, error] = await grab("GET /item");
      assertEquals(data, null);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assert(error.message.includes("custom fetch returned"), error.message);
      assert(error.message.includes("response.clone()"), error.message);
      assertEquals(made(), 0, "a used response was retried");
      assertEquals(calls, 2);
    });
  }

  await t.step("a body locked by a reader", async () => {
    const answer = await fetch(`${server.url}/item`);
    const reader = answer.body!.getReader();
    const grab = createGrab(server.url, {
      retry: 2,
      fetch: () => Promise.resolve(answer),
    });
    const [, error] = await grab("GET /item");
    assertInstanceOf(error, GrabTransportError);
    assert(error.message.includes("used or locked"), error.message);
    await reader.cancel();
  });

  await t.step("a fresh response each time is read", async () => {
    const grab = createGrab(server.url, {
      fetch: (input, init) => fetch(input, init),
    });
    const [data, error] = await grab("GET /item");
    assertEquals(error, null);
    assertEquals(data, { id: 1 });
  });
});

Deno.test("an HTTP client that is closed is told so, and not retried", async (t) => {
  await using server = startServer(() => json({ id: 1 }));

  await t.step("a Deno.HttpClient closed before the grab", async () => {
    const client = Deno.createHttpClient({});
    client.close();
    const { retry, made } = counted();
    const grab = createGrab(server.url, {
      retry,
      fetch: (input, init) => fetch(input, { ...init, client }),
    });
    const [, error] = await grab("GET /item");
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "network");
    assert(error.message.includes("HTTP client that is closed"), error.message);
    assertEquals(made(), 0, "a closed client was retried");
    assertEquals(server.requests.length, 0);
  });

  await t.step("as Node's fetch rejects for an undici dispatcher", async () => {
    for (const said of ["The client is destroyed", "The client is closed"]) {
      const cause = new Error(said);
      const { retry, made } = counted();
      const grab = createGrab(server.url, {
        retry,
        fetch: () => Promise.reject(new TypeError("fetch failed", { cause })),
      });
      const [, error] = await grab("GET /item");
      assertInstanceOf(error, GrabTransportError);
      assert(error.message.includes("still open"), error.message);
      assertEquals(made(), 0, `"${said}" was retried`);
    }
  });

  await t.step("an open client is used", async () => {
    using client = Deno.createHttpClient({});
    const grab = createGrab(server.url, {
      fetch: (input, init) => fetch(input, { ...init, client }),
    });
    assertEquals((await grab("GET /item"))[0], { id: 1 });
  });
});
