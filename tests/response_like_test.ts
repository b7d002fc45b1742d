/**
 * A custom `fetch` (or a hook) may hand back a response-like object whose
 * getters throw or give what a `Response` never would. Whatever they do,
 * the grab settles with a tuple and never rejects: a head that cannot be
 * read is a network failure, a status text or a URL that cannot be read is
 * left out, and a non-2xx status stays a `GrabError`.
 *
 * @module
 */

import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import createGrab, {
  isGrabHttpError,
  isGrabTransportError,
  paginate,
} from "../mod.ts";
import { json, startServer } from "./_server.ts";

/**
 * A server's response, copied into one the platform's `fetch` did not make
 * (whose members grab reads as they are), behind a Proxy whose `name`
 * getter does `get`.
 */
function wrapped(
  real: Response,
  name: string,
  get: (response: Response) => unknown,
): Response {
  const response = new Response(real.body, real);
  return new Proxy(response, {
    get(target, key) {
      if (key === name) return get(target);
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

const THROWS = () => {
  throw new Error("no such member");
};
const NOT_TEXT = () => ({
  toString() {
    throw new Error("no text");
  },
});

/**
 * A `fetch` whose responses give `name` on its first read (the check that
 * they are responses) and throw on every read after it.
 */
function readOnce(name: "headers" | "status") {
  return async (input: Request | string, init?: RequestInit) => {
    let reads = 0;
    return wrapped(await fetch(input, init), name, (response) => {
      if (++reads > 1) throw new Error(`no ${name} now`);
      return response[name];
    });
  };
}

Deno.test("a response-like whose status text or URL cannot be read", async (t) => {
  await using server = startServer({
    "/ok": () => json({ a: 1 }),
    "/missing": () => json({ error: "gone" }, { status: 404 }),
    "/busy": () => json({ error: "busy" }, { status: 503 }),
  });
  for (const name of ["statusText", "url"]) {
    for (
      const [how, get] of [["throws", THROWS], [
        "is no string",
        NOT_TEXT,
      ]] as const
    ) {
      const grab = createGrab(server.url, {
        retry: 0,
        fetch: async (input, init) =>
          wrapped(await fetch(input, init), name, get),
      });
      for (const responseType of ["json", "text", "blob", "ndjson"] as const) {
        await t.step(
          `${name} ${how}, ${responseType}: a 2xx is a success`,
          async () => {
            const [data, error, meta] = await grab("GET /ok", { responseType });
            assertStrictEquals(error, null);
            assert(data !== null);
            assertStrictEquals(meta.statusCode, 200);
            if (responseType === "ndjson") {
              const rows = [];
              for await (const row of data as AsyncIterable<unknown>) {
                rows.push(row);
              }
              assertEquals(rows, [{ a: 1 }]);
            }
          },
        );
      }
      await t.step(
        `${name} ${how}: a 404 is a GrabError without it`,
        async () => {
          const [data, error, meta] = await grab("GET /missing");
          assertStrictEquals(data, null);
          assert(isGrabHttpError(error));
          assertStrictEquals(error.statusCode, 404);
          assertEquals(error.body, { error: "gone" });
          assertEquals(
            error.message,
            `404${
              name === "statusText" ? "" : " Not Found"
            }: GET ${server.url}/missing`,
          );
          assertEquals(meta, {});
        },
      );
    }
  }

  for (const responseType of ["stream", "ndjson", "sse"] as const) {
    await t.step(
      `headers that cannot be read again, ${responseType}: the body is read, or let go`,
      async () => {
        const grab = createGrab(server.url, {
          retry: 0,
          fetch: readOnce("headers"),
        });
        const [data, error, meta] = await grab("GET /ok", { responseType });
        assertStrictEquals(error, null);
        assertStrictEquals(meta.statusCode, 200);
        // No headers are left to show, and the body is still the caller's.
        assertEquals([...meta.headers], []);
        if (responseType === "stream") {
          const text = await new Response(data as ReadableStream).text();
          assertEquals(text, '{"a":1}');
        } else {
          for await (const _ of data as AsyncIterable<unknown>) {
            // Read to the end.
          }
        }
      },
    );
  }

  await t.step(
    "headers that cannot be read the second time: a network failure",
    async () => {
      const grab = createGrab(server.url, {
        retry: 0,
        fetch: readOnce("headers"),
      });
      const [data, error] = await grab("GET /ok");
      assertStrictEquals(data, null);
      assert(isGrabTransportError(error));
      assertStrictEquals(error.kind, "network");
    },
  );

  await t.step(
    "a status that cannot be read again: a network failure, the body let go",
    async () => {
      const grab = createGrab(server.url, {
        retry: 0,
        fetch: readOnce("status"),
      });
      const [data, error] = await grab("GET /ok");
      assertStrictEquals(data, null);
      assert(isGrabTransportError(error));
      assertStrictEquals(error.kind, "network");
    },
  );

  await t.step(
    "a type getter that throws: read as any other response",
    async () => {
      const grab = createGrab(server.url, {
        retry: 0,
        fetch: async (input, init) =>
          wrapped(await fetch(input, init), "type", THROWS),
      });
      const [data, error] = await grab("GET /ok");
      assertStrictEquals(error, null);
      assertEquals(data, { a: 1 });
    },
  );

  await t.step(
    "a 503 whose headers cannot be read again: no Retry-After, no rejection",
    async () => {
      const grab = createGrab(server.url, {
        retry: { limit: 1, backoff: () => 0 },
        fetch: readOnce("headers"),
      });
      const [data, error] = await grab("GET /busy");
      assertStrictEquals(data, null);
      assert(isGrabHttpError(error));
      assertStrictEquals(error.statusCode, 503);
    },
  );

  await t.step("paginate reads pages whose URL cannot be read", async () => {
    const grab = createGrab(server.url, {
      retry: 0,
      fetch: async (input, init) =>
        wrapped(await fetch(input, init), "url", THROWS),
    });
    const pages: unknown[] = [];
    for await (const [data] of paginate(grab, "GET /ok")) pages.push(data);
    assertEquals(pages, [{ a: 1 }]);
  });
});
