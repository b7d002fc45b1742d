import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { GrabTransportError, paginate } from "../mod.ts";
import { startServer } from "./_server.ts";

// The tests may reach 127.0.0.1 only (`--allow-net=127.0.0.1`), so Deno
// refuses `localhost`, though it names the same server.
Deno.test("a request the runtime's permissions refuse is not retried and says why", async (t) => {
  await using server = startServer(() => Response.json({}));
  const port = new URL(server.url).port;
  const base = `http://localhost:${port}`;
  let backoffs = 0;
  const retry = {
    limit: 2,
    backoff: () => {
      backoffs++;
      return 0;
    },
  };

  for (
    const [name, options] of [
      ["the platform's fetch", {}],
      ["a hook", { hooks: { beforeRequest: () => {} } }],
      ["a custom fetch", {
        fetch: (i: RequestInfo | URL, o?: RequestInit) => fetch(i, o),
      }],
    ] as const
  ) {
    await t.step(name, async () => {
      backoffs = 0;
      const [data, error] = await createGrab(base, { ...options, retry })(
        "GET /item",
      );
      assertEquals(data, null);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assert(error.message.includes("permissions refused it"), error.message);
      assert(error.message.includes("--allow-net"), error.message);
      assertEquals((error.cause as Error).name, "NotCapable");
      assertEquals(backoffs, 0, "a refused request was retried");
    });
  }
  assertEquals(server.requests.length, 0);
});

Deno.test("a permission other than the network's is named as refused", async () => {
  // A custom fetch that reads a file first (a certificate, a cache) where
  // the tests may read only their own folder (`--allow-read=.`).
  await using server = startServer(() => Response.json({}));
  let backoffs = 0;
  const grab = createGrab(server.url, {
    retry: {
      limit: 2,
      backoff: () => {
        backoffs++;
        return 0;
      },
    },
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      await Deno.readTextFile("/etc/hostname");
      return fetch(input, init);
    },
  });
  const [, error] = await grab("GET /item");
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "network");
  assert(error.message.includes("permissions refused it"), error.message);
  assert(error.message.includes("--allow-read"), error.message);
  assert(!error.message.includes("--allow-net"), error.message);
  assertEquals((error.cause as Error).name, "NotCapable");
  assertEquals(backoffs, 0);
  assertEquals(server.requests.length, 0);
});

Deno.test("a network failure that is not a permission is still retried", async () => {
  // A port nothing listens on: the connection is refused by the peer.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  let backoffs = 0;
  const grab = createGrab(`http://127.0.0.1:${port}`, {
    retry: {
      limit: 2,
      backoff: () => {
        backoffs++;
        return 0;
      },
    },
  });
  const [, error] = await grab("GET /item");
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "network");
  assert(!error.message.includes("permissions"), error.message);
  assertEquals(backoffs, 2);
});

Deno.test("a permission refusal names the host refused, also after a redirect or a next link", async (t) => {
  // The base host is allowed; the redirect and the next link lead to
  // `localhost`, which `--allow-net=127.0.0.1` refuses.
  await using server = startServer((request) => {
    const { pathname, port } = new URL(request.url);
    const away = `http://localhost:${port}`;
    if (pathname === "/first") {
      return Response.json([1], {
        headers: { link: `<${away}/2>; rel="next"` },
      });
    }
    const status = pathname === "/moved" ? 302 : 307;
    return new Response(null, { status, headers: { location: `${away}/x` } });
  });
  const port = new URL(server.url).port;
  const named = `in Deno, allow "localhost:${port}" with --allow-net`;
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });

  for (
    const [name, endpoint, options] of [
      ["a redirect fetch follows", "GET /moved", {}],
      ["a redirect a counted upload follows", "POST /upload", {
        body: "x",
        onUploadProgress: () => {},
      }],
    ] as const
  ) {
    await t.step(name, async () => {
      const [, error] = await grab(endpoint, options);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assert(error.message.includes(named), error.message);
    });
  }

  await t.step("a next link paginate follows", async () => {
    const pages: unknown[] = [];
    const error = await (async () => {
      for await (const [data] of paginate(grab, "GET /first")) pages.push(data);
    })().then(() => undefined, (error: unknown) => error);
    assertEquals(pages, [[1]]);
    assertInstanceOf(error, GrabTransportError);
    assert(error.message.includes(named), error.message);
  });

  await t.step("a refusal's text is quoted only as a host", async () => {
    const refusal = (message: string) =>
      Object.assign(new Error(message), { name: "NotCapable" });
    for (
      const [message, what] of [
        ['Requires net access to "api.test:443", run again', '"api.test:443"'],
        ['Requires net access to "[::1]:8000", run again', '"[::1]:8000"'],
        ['Requires net access to "u:secret@api.test", run again', "the host"],
        [
          'Requires net access to "api.test/?key=secret", run again',
          "the host",
        ],
        ["Refused", "the host"],
      ] as const
    ) {
      const [, error] = await createGrab(server.url, {
        retry: 0,
        fetch: () => Promise.reject(refusal(message)),
      })("GET /x");
      assertInstanceOf(error, GrabTransportError);
      assert(
        error.message.includes(`allow ${what} with --allow-net`),
        error.message,
      );
      assert(!error.message.includes("secret"), error.message);
    }
  });
});
