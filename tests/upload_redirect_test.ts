import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, {
  Call,
  type GrabOptions,
  GrabTransportError,
  type Progress,
} from "../mod.ts";
import { json, startServer } from "./_server.ts";

Deno.test("a counted upload follows no more redirects than fetch does", async () => {
  await using fixture = startServer({
    "/loop": () =>
      new Response(null, { status: 307, headers: { location: "/loop" } }),
  });
  const grab = createGrab(fixture.url, { retry: 0 });
  const hops = async (counted: boolean) => {
    const before = fixture.requests.length;
    const [data, error] = await grab(
      "POST /loop",
      counted ? { body: "hello", onUploadProgress: () => {} } : {
        body: "hello",
      },
    );
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "network");
    return fixture.requests.length - before;
  };
  const plain = await hops(false);
  assertEquals(await hops(true), plain);
});

Deno.test("a counted upload's later hops are sent as fetch sends them", async () => {
  await using other = startServer(() => new Response(null, { status: 204 }));
  await using fixture = startServer({
    "/first": () =>
      new Response(null, { status: 307, headers: { location: "/second" } }),
    "/second": () =>
      new Response(null, {
        status: 308,
        headers: { location: `${other.url}/third` },
      }),
  });
  const grab = createGrab(fixture.url, {
    headers: { authorization: "Bearer secret" },
  });
  const seen = async (counted: boolean) => {
    const at = [fixture.requests.length, other.requests.length];
    const body = "hello";
    const [, error, meta] = await grab(
      "PUT /first",
      counted ? { body, onUploadProgress: () => {} } : { body },
    );
    assertEquals(error, null);
    assertEquals(meta.statusCode, 204);
    return [
      ...fixture.requests.slice(at[0]),
      ...other.requests.slice(at[1]),
    ].map((r) =>
      `${r.method} ${r.url.pathname} ${r.body} ${
        r.headers.get("authorization")
      }`
    );
  };
  const plain = await seen(false);
  assertEquals(plain.at(-1), "PUT /third hello null");
  assertEquals(await seen(true), plain);
});

Deno.test("a counted form keeps its boundary on every hop, with hooks too", async () => {
  await using fixture = startServer({
    "/first": () =>
      new Response(null, { status: 307, headers: { location: "/second" } }),
    "/second": () =>
      new Response(null, { status: 308, headers: { location: "/echo" } }),
    "/echo": (_request, seen) =>
      json({ type: seen.headers.get("content-type"), body: seen.body }),
  });
  const hooks = { afterResponse: (_request: Request, r: Response) => r };
  for (const given of [{}, { hooks }]) {
    const grab = createGrab(fixture.url, { retry: 0, ...given });
    const form = new FormData();
    form.set("pet", "cat");
    const [data, error] = await grab<{ type: string; body: string }>(
      "POST /first",
      { body: form, onUploadProgress: () => {} },
    );
    assertEquals(error, null);
    const boundary = data!.type.split("boundary=")[1]!;
    assert(data!.body.includes(boundary), `hooks: ${"hooks" in given}`);
  }
});

Deno.test("an afterResponse hook sees a counted upload's redirect as fetch shows it", async () => {
  await using fixture = startServer({
    "/first": () =>
      new Response(null, { status: 307, headers: { location: "/second" } }),
    "/second": () =>
      new Response(null, { status: 308, headers: { location: "/login" } }),
    "/login": () => json({ login: true }),
    "/stay": () => json({ login: false }),
  });
  for (const path of ["/first", "/stay"]) {
    const seen = [];
    for (const counted of [{}, { onUploadProgress: () => {} }]) {
      let told = "";
      const grab = createGrab(fixture.url, {
        retry: 0,
        hooks: {
          afterResponse: (_request, response) => {
            told = `${response.redirected} ${new URL(response.url).pathname}`;
          },
        },
      });
      const [, error] = await grab(`PUT ${path}` as "PUT /", {
        body: "hello",
        ...counted,
      });
      assertEquals(error, null);
      seen.push(told);
    }
    assertEquals(seen[1], seen[0], path);
  }
});

Deno.test("a counted upload's outcome names the URL it was redirected to as fetch does", async () => {
  await using fixture = startServer({
    "/first": () =>
      new Response(null, {
        status: 307,
        headers: { location: "/second?page=2#top" },
      }),
    "/second": () => json({ ok: true }),
  });
  const urls: string[] = [];
  for (const counted of [false, true]) {
    const outcome = await new Call("PUT /first", fixture.url).send({
      body: "hello",
      retry: 0,
      ...(counted ? { onUploadProgress: () => {} } : {}),
    });
    assert(outcome.ok);
    urls.push(outcome.url);
  }
  // A response's URL never has a fragment.
  assertEquals(urls, Array(2).fill(`${fixture.url}/second?page=2`));
});

Deno.test("a counted body whose response has come reports nothing more", async (t) => {
  const body = new Uint8Array(1024 * 1024);
  const send = (
    grab: ReturnType<typeof createGrab>,
    path: string,
    loaded: number[],
  ) =>
    grab(`PUT ${path}` as "PUT /", {
      body,
      onUploadProgress: (progress) => loaded.push(progress.loaded),
    });

  await t.step("answered early", async () => {
    const fetch = holdingFetch(json({ refused: true }, { status: 401 }));
    const grab = createGrab("http://127.0.0.1:9", { fetch, retry: 0 });
    const loaded: number[] = [];
    await send(grab, "/refused", loaded);
    const reported = loaded.length;
    assertInstanceOf(await readToEnd(fetch.held()), TypeError);
    assertEquals(loaded.length, reported);
  });

  await t.step("redirected", async () => {
    const loaded: number[] = [];
    let during: unknown;
    const fetch = holdingFetch(
      new Response(null, { status: 307, headers: { location: "/next" } }),
      async () => {
        // The next hop is on its way: the first is over.
        const reported = loaded.length;
        during = await readToEnd(fetch.held());
        assertEquals(loaded.length, reported);
      },
    );
    const grab = createGrab("http://127.0.0.1:9", { fetch, retry: 0 });
    const [, error] = await send(grab, "/first", loaded);
    assertEquals(error, null);
    assertInstanceOf(during, TypeError);
  });

  await t.step("retried after a 503", async () => {
    const loaded: number[] = [];
    let during: unknown;
    const fetch = holdingFetch(new Response(null, { status: 503 }));
    const grab = createGrab("http://127.0.0.1:9", {
      fetch,
      retry: { limit: 1, backoff: () => 0 },
      hooks: {
        // Before the next attempt: the first is over, its response read.
        beforeRetry: async () => {
          const reported = loaded.length;
          during = await readToEnd(fetch.held());
          assertEquals(loaded.length, reported);
        },
      },
    });
    const [, error] = await send(grab, "/busy", loaded);
    assertEquals(error, null);
    assertInstanceOf(during, TypeError);
  });

  await t.step("rejected: a hook or the backoff threw", async () => {
    const thrown = new Error("the caller's code threw");
    const cases: Record<string, GrabOptions> = {
      afterResponse: { hooks: { afterResponse: () => Promise.reject(thrown) } },
      backoff: {
        retry: {
          limit: 1,
          backoff: () => {
            throw thrown;
          },
        },
      },
    };
    for (const [name, options] of Object.entries(cases)) {
      const fetch = holdingFetch(new Response(null, { status: 503 }));
      const grab = createGrab("http://127.0.0.1:9", { fetch, ...options });
      const loaded: number[] = [];
      const rejected = await send(grab, "/busy", loaded).catch((e) => e);
      assertEquals(rejected, thrown, name);
      const reported = loaded.length;
      assertInstanceOf(await readToEnd(fetch.held()), TypeError, name);
      assertEquals(loaded.length, reported, name);
    }
  });
});

/**
 * A fetch that answers its first request with `first` without reading its
 * body, and holds the body, as Deno's fetch does: it reads on after the
 * response has come, sending the rest to a server that answered without
 * waiting for it (a redirect, a 401). Later requests are read, after
 * `before`, and answered with a 200.
 */
function holdingFetch(first: Response, before?: () => Promise<void>) {
  let heldBody: ReadableStream<Uint8Array> | null = null;
  return Object.assign(
    async (input: Request | string, init?: RequestInit) => {
      const request = new Request(input, init);
      if (heldBody === null) {
        heldBody = request.body;
        return first;
      }
      await before?.();
      await request.arrayBuffer();
      return json({ ok: true });
    },
    { held: () => heldBody! },
  );
}

/** Reads a stream to its end: what it failed with, or `undefined`. */
async function readToEnd(stream: ReadableStream<Uint8Array>): Promise<unknown> {
  const reader = stream.getReader();
  try {
    for (;;) if ((await reader.read()).done) return undefined;
  } catch (error) {
    return error;
  }
}

Deno.test("a counted upload that a redirect sends again reports its end once", async () => {
  await using fixture = startServer({
    "/old": () =>
      new Response(null, { status: 307, headers: { location: "/new" } }),
    "/older": () =>
      new Response(null, { status: 308, headers: { location: "/old" } }),
    "/new": (_request, seen) => json({ size: seen.body.length }),
  });
  const grab = createGrab(fixture.url, { retry: 0 });
  const bytes = new Uint8Array(150_000).fill(65);
  const bodies: [string, BodyInit, number][] = [
    ["bytes", bytes, bytes.byteLength],
    ["a blob", new Blob([bytes]), bytes.byteLength],
    ["a string", "moved", 5],
    ["an empty string", "", 0],
  ];
  const hooked = { beforeRequest: () => {} };
  for (const [name, body, total] of bodies) {
    for (const endpoint of ["PUT /old", "PUT /older"] as const) {
      for (const hooks of [undefined, hooked]) {
        const what = `${name}, ${endpoint}${hooks ? ", with a hook" : ""}`;
        const seen: Progress[] = [];
        const [data, error] = await grab(endpoint, {
          body,
          hooks,
          onUploadProgress: (progress) => void seen.push({ ...progress }),
        });
        assertEquals([data, error], [{ size: total }, null], what);
        assertEquals(seen[0], { loaded: 0, total }, what);
        const ends = seen.filter((progress) => progress.loaded === total);
        assertEquals(ends, [{ loaded: total, total }], what);
        assertEquals(seen.at(-1), { loaded: total, total }, what);
        for (let i = 1; i < seen.length; i++) {
          assert(seen[i]!.loaded >= seen[i - 1]!.loaded, what);
        }
      }
    }
  }
});
