/**
 * What a hook returns that is neither nothing nor the documented
 * replacement: a bug in the caller's code, which rejects the grab like a
 * hook that throws, is never taken for a response, and is never retried
 * as a network failure.
 *
 * @module
 */

import { assertEquals, assertRejects } from "@std/assert";
import createGrab from "../mod.ts";
import { json, startServer } from "./_server.ts";

const NOT_REQUESTS: [string, unknown][] = [
  ["a string", "http://127.0.0.1:1/elsewhere"],
  ["a number", 42],
  ["a plain object", { url: "http://127.0.0.1:1/" }],
  ["a plain object shaped like a Request", {
    url: "http://127.0.0.1:1/",
    method: "GET",
    headers: new Headers(),
  }],
  ["a Response", new Response("x")],
];

const NOT_RESPONSES: [string, unknown][] = [
  ["a string", "x"],
  ["true", true],
  [
    "a Request with a JSON body",
    new Request("http://x.test/", {
      method: "POST",
      body: '{"forged":true}',
    }),
  ],
  ["an object with a status that is not a number", {
    status: "200",
    headers: new Headers(),
    body: null,
  }],
  // Read unguarded, their error skipped the release of the response.
  ["an object whose status getter throws", {
    get status(): number {
      throw new Error("no status");
    },
  }],
  ["an object whose headers getter throws", {
    status: 200,
    get headers(): Headers {
      throw new Error("no headers");
    },
  }],
];

Deno.test("a beforeRequest hook that returns something else than a Request", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  for (const [name, value] of NOT_REQUESTS) {
    await t.step(`${name}: the grab rejects, nothing is sent`, async () => {
      await assertRejects(
        () => grab("GET /", { hooks: { beforeRequest: () => value as void } }),
        TypeError,
        "beforeRequest",
      );
      assertEquals(server.requests.length, 0);
    });
  }
});

Deno.test("an afterResponse hook that returns something else than a Response", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  for (const [name, value] of NOT_RESPONSES) {
    await t.step(`${name}: the grab rejects after one attempt`, async () => {
      const before = server.requests.length;
      await assertRejects(
        () =>
          grab("GET /", {
            hooks: { afterResponse: () => value as Response },
          }),
        TypeError,
        "afterResponse",
      );
      assertEquals(server.requests.length - before, 1);
    });
  }
  await t.step(
    "an object whose body getter throws: the response it replaces is released",
    async () => {
      const [, error] = await grab("GET /", {
        hooks: {
          afterResponse: () =>
            ({
              status: 200,
              headers: new Headers(),
              get body(): null {
                throw new Error("no body");
              },
            }) as unknown as Response,
        },
      });
      assertEquals(error?.name, "GrabTransportError");
    },
  );
  await t.step("a factory hook's result is checked too", async () => {
    const hooked = createGrab(server.url, {
      retry: { limit: 2, backoff: () => 0 },
      hooks: { afterResponse: () => "x" as unknown as Response },
    });
    await assertRejects(() => hooked("GET /"), TypeError, "afterResponse");
  });
  await t.step(
    "in a chain of factory and call hooks, each result is checked before the next hook gets it",
    async () => {
      const before = server.requests.length;
      const seen: unknown[] = [];
      const chained = createGrab(server.url, {
        retry: { limit: 2, backoff: () => 0 },
        hooks: { afterResponse: () => "x" as unknown as Response },
      });
      await assertRejects(
        () =>
          chained("GET /", {
            hooks: {
              afterResponse: (_request, response) => void seen.push(response),
            },
          }),
        TypeError,
        "afterResponse",
      );
      assertEquals(seen, []);
      assertEquals(server.requests.length - before, 1);
    },
  );
  await t.step(
    "a falsy result means no replacement, alone or in a chain",
    async () => {
      const falsy = () => false as unknown as Response;
      const alone = createGrab(server.url, { hooks: { afterResponse: falsy } });
      assertEquals((await alone("GET /"))[0], { ok: true });
      assertEquals(
        (await alone("GET /", { hooks: { afterResponse: falsy } }))[0],
        { ok: true },
      );
    },
  );
});

Deno.test("beforeRequest hooks in a chain: each result is checked before the next hook gets it", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const seen: unknown[] = [];
  const grab = createGrab(server.url, {
    hooks: { beforeRequest: () => 7 as unknown as Request },
  });
  await t.step(
    "junk from the factory's hook rejects; the call's never runs",
    async () => {
      await assertRejects(
        () =>
          grab("GET /", { hooks: { beforeRequest: (r) => void seen.push(r) } }),
        TypeError,
        "beforeRequest",
      );
      assertEquals(seen, []);
      assertEquals(server.requests.length, 0);
    },
  );
  await t.step(
    "a falsy result means no replacement in a chain too",
    async () => {
      const quiet = createGrab(server.url, {
        hooks: { beforeRequest: () => 0 as unknown as Request },
      });
      const [data] = await quiet("GET /", {
        hooks: { beforeRequest: () => "" as unknown as Request },
      });
      assertEquals(data, { ok: true });
    },
  );
});

Deno.test("a beforeRequest hook that leaves the body used: the grab rejects, nothing is sent or retried", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  let fetched = 0;
  const counting: typeof fetch = (input, init) => {
    fetched++;
    return fetch(input, init);
  };
  const grab = createGrab(server.url, {
    fetch: counting,
    retry: { limit: 2, backoff: () => 0 },
  });
  const hooks: [string, (request: Request) => Promise<Request | void>][] = [
    ["reads the body and returns nothing", async (request) => {
      await request.text();
    }],
    ["returns a request whose body it read", async (request) => {
      const copy = new Request(request);
      await copy.arrayBuffer();
      return copy;
    }],
  ];
  for (const [name, beforeRequest] of hooks) {
    await t.step(name, async () => {
      let calls = 0;
      await assertRejects(
        () =>
          grab("PUT /", {
            body: "abc",
            hooks: {
              beforeRequest: (request) => (calls++, beforeRequest(request)),
            },
          }),
        TypeError,
        "the Request a beforeRequest hook left has its body used",
      );
      assertEquals([calls, fetched, server.requests.length], [1, 0, 0]);
    });
  }
  await t.step("locks the body and returns nothing", async () => {
    // `fetch` refuses the request: the hook's bug, not a network failure.
    let calls = 0;
    const before = fetched;
    await assertRejects(
      () =>
        grab("PUT /", {
          body: "abc",
          hooks: {
            beforeRequest: (request) => {
              calls++;
              request.body?.getReader();
            },
          },
        }),
      TypeError,
      "beforeRequest hook left its body locked",
    );
    assertEquals([calls, fetched - before, server.requests.length], [1, 1, 0]);
  });
  await t.step("a hook that reads a clone sends the body", async () => {
    const [data] = await grab("PUT /", {
      body: "abc",
      hooks: {
        beforeRequest: async (request) => {
          await request.clone().text();
        },
      },
    });
    assertEquals(data, { ok: true });
    assertEquals(server.requests.at(-1)?.body, "abc");
  });
});

Deno.test("an afterResponse hook that leaves the body locked: the grab rejects, nothing is retried", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  const hooks: [string, (response: Response) => Response | void][] = [
    ["locks the response's body and returns nothing", (response) => {
      readers.push(response.body!.getReader());
    }],
    ["returns a response whose body it locked", (response) => {
      void response.body?.cancel();
      const made = new Response('{"made":true}');
      readers.push(made.body!.getReader());
      return made;
    }],
  ];
  for (const [name, afterResponse] of hooks) {
    await t.step(name, async () => {
      const before = server.requests.length;
      let calls = 0;
      await assertRejects(
        () =>
          grab("GET /", {
            hooks: {
              afterResponse: (_request, response) => (
                calls++, afterResponse(response)
              ),
            },
          }),
        TypeError,
        "the Response an afterResponse hook left has its body used or locked",
      );
      // Not taken for a body the network broke off, and retried.
      assertEquals([calls, server.requests.length - before], [1, 1]);
      // The reader is the hook's to release.
      await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
    });
  }
});

Deno.test("a hook that returns one Request or Response for every attempt: the retry rejects, saying so", async (t) => {
  let calls = 0;
  await using server = startServer(() =>
    ++calls === 1 ? json({ busy: true }, { status: 503 }) : json({ ok: true })
  );
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });

  await t.step("beforeRequest: the first attempt sent its body", async () => {
    calls = 0;
    const once = new Request(`${server.url}/`, { method: "PUT", body: "abc" });
    await assertRejects(
      () =>
        grab("PUT /", { body: "abc", hooks: { beforeRequest: () => once } }),
      TypeError,
      "an earlier attempt sent it",
    );
    assertEquals(server.requests.at(-1)?.body, "abc");
  });

  await t.step(
    "afterResponse: the first attempt's retry let it go",
    async () => {
      calls = 0;
      const once = new Response("{}", { status: 503 });
      await assertRejects(
        () => grab("GET /", { hooks: { afterResponse: () => once } }),
        TypeError,
        "returned it for an earlier attempt too",
      );
    },
  );
});
