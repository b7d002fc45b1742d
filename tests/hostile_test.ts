/**
 * Hostile responses and hostile input: huge, deep, prototype-polluting,
 * duplicated, badly encoded and densely linked bodies each give a tuple;
 * secrets never reach an error's message; CR, LF and NUL in headers are
 * refused before any request.
 *
 * Every grab here has a `timeout`, so a hang fails as a timeout tuple instead
 * of stalling the run.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertMatch,
  assertNotMatch,
  assertNotStrictEquals,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import { FakeTime } from "@std/testing/time";
import createGrab, {
  Call,
  GrabError,
  GrabTransportError,
  GrabValidationError,
  isGrabTransportError,
  jsonApiOf,
} from "../mod.ts";
import { convertKey } from "../src/casing.ts";
import { closedPort, json, startServer } from "./_server.ts";
import { settle, until, watch } from "./_time.ts";

const NO_RETRY = { limit: 0, backoff: () => 0 };
const TIMEOUT = 20_000;
const DEPTH = 10_000;
const encoder = new TextEncoder();

type AnyRecord = Record<string, unknown>;

function bytes(...parts: (string | number[])[]): Uint8Array<ArrayBuffer> {
  const chunks = parts.map((part) =>
    typeof part === "string" ? encoder.encode(part) : new Uint8Array(part)
  );
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function raw(
  body: BodyInit,
  type = "application/json",
  status = 200,
): Response {
  return new Response(body, { status, headers: { "content-type": type } });
}

/** A body sent in the given chunks, so a character can straddle two. */
function chunked(...chunks: Uint8Array[]): Response {
  let i = 0;
  return raw(
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (i < chunks.length) controller.enqueue(chunks[i++]!);
        else controller.close();
      },
    }),
  );
}

// Keys that would change a prototype if a parser or a copy assigned them.
const HOSTILE_KEYS =
  '"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}';

/** `__proto__`, `constructor` and `prototype` at every level, in objects and arrays. */
function hostileJson(levels: number): string {
  let text = `{${HOSTILE_KEYS},"leaf_value":true}`;
  for (let i = 0; i < levels; i++) {
    text = `{${HOSTILE_KEYS},"child_node":${text},"list_items":[${text}]}`;
  }
  return text;
}

const HOSTILE_DOCUMENT = `{
  "data": {
    "type": "articles", "id": "1",
    "attributes": {${HOSTILE_KEYS}, "nested_value": ${hostileJson(2)}},
    "relationships": {
      "owner_ref": {"data": {"type": "__proto__", "id": "constructor"}},
      "writer": {"data": {"type": "people", "id": "9"}}
    },
    "meta": {${HOSTILE_KEYS}}
  },
  "included": [
    {"type": "people", "id": "9", "attributes": {${HOSTILE_KEYS}},
     "relationships": {"__proto__": {"data": {"type": "articles", "id": "1"},
       "meta": {${HOSTILE_KEYS}}}}},
    {"type": "__proto__", "id": "constructor", "attributes": {"prototype": {"polluted": "yes"}}}
  ],
  "meta": {${HOSTILE_KEYS}}
}`;

const objectPrototypeNames = Object.getOwnPropertyNames(Object.prototype);

function assertNotPolluted(): void {
  assertStrictEquals(({} as AnyRecord).polluted, undefined);
  assertEquals(Object.hasOwn(Object.prototype, "polluted"), false);
  assertEquals(
    Object.getOwnPropertyNames(Object.prototype),
    objectPrototypeNames,
  );
  assertEquals(typeof Object.prototype.toString, "function");
  assertStrictEquals(({}).constructor, Object);
}

/**
 * Walks every object in `root` (iteratively, once each) and checks that
 * plain objects keep `Object.prototype`, and that an own `__proto__` key is
 * a data property holding `{ polluted: "yes" }` or a resource.
 */
function assertOwnProtoKeys(root: unknown): number {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  let ownProtoKeys = 0;
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null || seen.has(value)) {
      continue;
    }
    seen.add(value);
    if (!Array.isArray(value)) {
      assertStrictEquals(Object.getPrototypeOf(value), Object.prototype);
      const own = Object.getOwnPropertyDescriptor(value, "__proto__");
      if (own !== undefined) {
        ownProtoKeys++;
        assert("value" in own, "__proto__ is a data property");
        assertEquals(own.enumerable, true);
        assertEquals(typeof own.value, "object");
      }
      assertStrictEquals(
        (value as AnyRecord).polluted,
        Object.hasOwn(
            value,
            "polluted",
          )
          ? "yes"
          : undefined,
      );
    }
    for (const key of Object.keys(value)) {
      stack.push((value as AnyRecord)[key]);
    }
  }
  return ownProtoKeys;
}

const BIG_STRING_LENGTH = 10 * 1024 * 1024;
const MILLION = 1_000_000;

Deno.test("createGrab() hostile response bodies", async (t) => {
  let infiniteCancelled: () => void = () => {};
  const cancelled = new Promise<void>((resolve) => {
    infiniteCancelled = resolve;
  });
  await using server = startServer({
    "/big-string": () => raw(`"${"a".repeat(BIG_STRING_LENGTH)}"`),
    "/million": () =>
      raw(JSON.stringify(Array.from({ length: MILLION }, (_, i) => i))),
    "/deep-array": () => raw("[".repeat(DEPTH) + "]".repeat(DEPTH)),
    "/deep-object": () =>
      raw('{"a_b":'.repeat(DEPTH) + '"leaf"' + "}".repeat(DEPTH)),
    "/deep-resource": () =>
      raw(
        '{"data":{"type":"trees","id":"1","attributes":{"root_node":' +
          '{"a_b":'.repeat(DEPTH) + "[" + "[".repeat(DEPTH) +
          "]".repeat(DEPTH) + "]" + "}".repeat(DEPTH) + "}}}",
        "application/vnd.api+json",
      ),
    "/duplicate-keys": () =>
      raw('{"a":1,"a":2,"nested":{"b":{"x":1},"b":{"y":2}},"c_d":1,"cD":2}'),
    "/duplicate-members": () =>
      raw(
        '{"data":{"type":"a","id":"1","attributes":{"title":"first","title":"second"}},' +
          '"data":{"type":"a","id":"2","attributes":{"title":"third","title":"fourth"}}}',
        "application/vnd.api+json",
      ),
    "/utf8-in-string": () =>
      raw(bytes('{"name":"a', [0xff, 0xc0, 0xaf], 'b"}')),
    "/utf8-outside-string": () => raw(bytes([0xff, 0xfe], "{}")),
    "/utf8-bom": () => raw(bytes([0xef, 0xbb, 0xbf], '{"a":1}')),
    "/utf8-split": () =>
      chunked(bytes('{"name":"caf', [0xc3]), bytes([0xa9], '"}')),
    "/utf8-truncated": () => raw(bytes('{"name":"x', [0xe2, 0x82], '"}')),
    "/dense": () => raw(denseDocument(300), "application/vnd.api+json"),
    "/infinite": () =>
      raw(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
          },
          cancel() {
            infiniteCancelled();
          },
        }),
      ),
    "/lying-length": () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode("{}"));
            controller.close();
          },
        }),
        { headers: { "content-length": "999999999999" } },
      ),
  });
  const grab = createGrab(server.url, { retry: NO_RETRY, timeout: TIMEOUT });
  const api = createGrab(server.url, {
    format: "json-api",
    retry: NO_RETRY,
    timeout: TIMEOUT,
  });

  await t.step("a 10 MB JSON string is a success", async () => {
    const [data, error, meta] = await grab<string>("GET /big-string");
    assertStrictEquals(error, null);
    assertEquals(meta.statusCode, 200);
    assertEquals(typeof data, "string");
    assertStrictEquals(data!.length, BIG_STRING_LENGTH);
  });

  for (const casing of ["none", "camelCase"] as const) {
    await t.step(
      `a 1,000,000-element array is a success (casing ${casing})`,
      async () => {
        const [data, error] = await grab<number[]>("GET /million", { casing });
        assertStrictEquals(error, null);
        assertStrictEquals(data!.length, MILLION);
        assertStrictEquals(data![MILLION - 1], MILLION - 1);
      },
    );

    await t.step(
      `${DEPTH}-deep arrays are a success (casing ${casing})`,
      async () => {
        const [data, error] = await grab("GET /deep-array", { casing });
        assertStrictEquals(error, null);
        let node: unknown = data;
        for (let depth = 1; depth < DEPTH; depth++) {
          assert(Array.isArray(node) && node.length === 1);
          node = node[0];
        }
        assertEquals(node, []);
      },
    );

    await t.step(
      `${DEPTH}-deep objects are a success (casing ${casing})`,
      async () => {
        const [data, error] = await grab("GET /deep-object", { casing });
        assertStrictEquals(error, null);
        const key = casing === "none" ? "a_b" : "aB";
        let node: unknown = data;
        for (let depth = 0; depth < DEPTH; depth++) {
          assertEquals(Object.keys(node as object), [key]);
          node = (node as AnyRecord)[key];
        }
        assertEquals(node, "leaf");
      },
    );

    await t.step(
      `a ${DEPTH}-deep JSON:API attribute is a success (casing ${casing})`,
      async () => {
        const [data, error] = await api<AnyRecord>("GET /deep-resource", {
          casing,
        });
        assertStrictEquals(error, null);
        const key = casing === "none" ? "a_b" : "aB";
        let node: unknown = data![casing === "none" ? "root_node" : "rootNode"];
        for (let depth = 0; depth < DEPTH; depth++) {
          node = (node as AnyRecord)[key];
        }
        for (let depth = 0; depth < DEPTH; depth++) {
          assert(Array.isArray(node) && node.length === 1);
          node = node[0];
        }
        assertEquals(node, []);
      },
    );

    await t.step(
      `duplicate keys: the last wins, as in JSON.parse; keys that the casing makes one fail (casing ${casing})`,
      async () => {
        const [data, error] = await grab("GET /duplicate-keys", { casing });
        if (casing === "none") {
          assertStrictEquals(error, null);
          assertEquals(data, {
            a: 2,
            nested: { b: { y: 2 } },
            c_d: 1,
            cD: 2,
          });
          return;
        }
        // "c_d" and "cD" are two keys: one value would be lost.
        assertStrictEquals(data, null);
        assert(isGrabTransportError(error));
        assertStrictEquals(error.kind, "parse");
        const both = convertKey("cD", casing);
        assertStringIncludes(
          error.message,
          `Cannot read the response: keys "c_d" and "cD" both become "${both}" in ${casing}: GET `,
        );
      },
    );

    await t.step(
      `duplicate JSON:API members: the last wins (casing ${casing})`,
      async () => {
        const [data, error] = await api("GET /duplicate-members", { casing });
        assertStrictEquals(error, null);
        assertEquals(data, { type: "a", id: "2", title: "fourth" });
      },
    );
  }

  await t.step(
    "invalid UTF-8 inside a string is replaced with U+FFFD: a success",
    async () => {
      const [data, error] = await grab("GET /utf8-in-string");
      assertStrictEquals(error, null);
      assertEquals(data, { name: "a\uFFFD\uFFFD\uFFFDb" });
    },
  );

  await t.step(
    "a truncated UTF-8 sequence is replaced with U+FFFD: a success",
    async () => {
      const [data, error] = await grab("GET /utf8-truncated");
      assertStrictEquals(error, null);
      assertEquals(data, { name: "x\uFFFD" });
    },
  );

  await t.step(
    "invalid UTF-8 outside a string is a parse error",
    async () => {
      const [data, error, meta] = await grab("GET /utf8-outside-string");
      assertStrictEquals(data, null);
      assert(error instanceof GrabTransportError);
      assertEquals(error.kind, "parse");
      assertEquals(meta, { statusCode: 0 });
    },
  );

  await t.step("a UTF-8 byte order mark is dropped: a success", async () => {
    const [data, error] = await grab("GET /utf8-bom");
    assertStrictEquals(error, null);
    assertEquals(data, { a: 1 });
  });

  await t.step(
    "a character split across two chunks is decoded whole",
    async () => {
      const [data, error] = await grab("GET /utf8-split");
      assertStrictEquals(error, null);
      assertEquals(data, { name: "café" });
    },
  );

  for (const casing of ["none", "camelCase"] as const) {
    await t.step(
      `300 resources each linked to all others: one object per resource (casing ${casing})`,
      async () => {
        const [data, error] = await api<AnyRecord>("GET /dense", { casing });
        assertStrictEquals(error, null);
        const name = casing === "none" ? "peer_list" : "peerList";
        const first = data!;
        const peers = first[name] as AnyRecord[];
        assertEquals(peers.length, 299);
        const byId = new Map<string, AnyRecord>([["0", first]]);
        for (const peer of peers) byId.set(peer.id as string, peer);
        assertEquals(byId.size, 300);
        for (const resource of byId.values()) {
          const links = resource[name] as AnyRecord[];
          assertEquals(links.length, 299);
          for (const linked of links) {
            assertNotStrictEquals(linked, resource);
            assertStrictEquals(linked, byId.get(linked.id as string));
          }
          assertStrictEquals(resource.rank, Number(resource.id));
        }
        // The cycle back to the primary resource is the same object.
        assertStrictEquals((peers[0]![name] as AnyRecord[])[0], first);
      },
    );
  }

  await t.step(
    "an endless body is cancelled at maxBodyBytes: too-large",
    async () => {
      const [data, error, meta] = await grab("GET /infinite", {
        maxBodyBytes: 1024 * 1024,
      });
      assertStrictEquals(data, null);
      assert(error instanceof GrabTransportError);
      assertEquals(error.kind, "too-large");
      assertEquals(meta, { statusCode: 0 });
      await within(cancelled, "the server's stream was never cancelled");
    },
  );

  await t.step(
    "a declared length over maxBodyBytes is too-large before reading",
    async () => {
      const [data, error] = await grab("GET /lying-length", {
        maxBodyBytes: 1024,
      });
      assertStrictEquals(data, null);
      assert(error instanceof GrabTransportError);
      assertEquals(error.kind, "too-large");
    },
  );
});

/** Resolves with `promise`, or fails after a generous bound. */
async function within(promise: Promise<void>, message: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), 10_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** `count` resources, each with a to-many `peer_list` to every other one. */
function denseDocument(count: number): string {
  const resources = [];
  for (let i = 0; i < count; i++) {
    const data = [];
    for (let j = 0; j < count; j++) {
      if (j !== i) data.push({ type: "nodes", id: String(j) });
    }
    resources.push({
      type: "nodes",
      id: String(i),
      attributes: { rank: i },
      relationships: { peer_list: { data } },
    });
  }
  return JSON.stringify({ data: resources[0], included: resources.slice(1) });
}

Deno.test("createGrab() prototype pollution", async (t) => {
  await using server = startServer({
    "/json": () => raw(hostileJson(3)),
    "/jsonapi": () => raw(HOSTILE_DOCUMENT, "application/vnd.api+json"),
    "/jsonapi-error": () =>
      raw(
        `{"errors":[{"status":"422","detail":"bad","meta":{${HOSTILE_KEYS}},` +
          `"source":{"pointer":"/data/attributes/__proto__"}}]}`,
        "application/vnd.api+json",
        422,
      ),
  });
  const casings = ["none", "camelCase", "snake_case", "PascalCase"] as const;

  for (const casing of casings) {
    await t.step(
      `JSON keys __proto__, constructor and prototype stay data (casing ${casing})`,
      async () => {
        const grab = createGrab(server.url, {
          casing,
          retry: NO_RETRY,
          timeout: TIMEOUT,
        });
        const [data, error] = await grab<AnyRecord>("GET /json");
        assertStrictEquals(error, null);
        assertNotPolluted();
        // 1 at the top, then each level holds 2 copies of the one below.
        assertStrictEquals(assertOwnProtoKeys(data), 1 + 2 + 4 + 8);
        const proto = Object.getOwnPropertyDescriptor(data, "__proto__");
        const pascal = casing === "PascalCase";
        const polluted = pascal ? { Polluted: "yes" } : { polluted: "yes" };
        assertEquals(proto?.value, polluted);
        assertEquals(
          data![pascal ? "Constructor" : "constructor"],
          pascal ? { Prototype: polluted } : { prototype: polluted },
        );
      },
    );

    await t.step(
      `JSON:API attributes and relationships named __proto__ stay data (casing ${casing})`,
      async () => {
        const api = createGrab(server.url, {
          format: "json-api",
          casing,
          retry: NO_RETRY,
          timeout: TIMEOUT,
        });
        const [article, error, meta] = await api<AnyRecord>("GET /jsonapi");
        assertStrictEquals(error, null);
        assertNotPolluted();
        assert(assertOwnProtoKeys(article) > 0);
        assert(assertOwnProtoKeys(meta.meta) > 0);
        assertEquals(
          Object.getOwnPropertyDescriptor(article, "__proto__")?.value,
          casing === "PascalCase" ? { Polluted: "yes" } : { polluted: "yes" },
        );
        const writer = casing === "PascalCase" ? "Writer" : "writer";
        const owner = casing === "none"
          ? "owner_ref"
          : casing === "camelCase"
          ? "ownerRef"
          : casing === "PascalCase"
          ? "OwnerRef"
          : "owner_ref";
        const person = article![writer] as AnyRecord;
        assertEquals(person.type, "people");
        // The relationship named __proto__ points back at the article.
        assertStrictEquals(
          Object.getOwnPropertyDescriptor(person, "__proto__")?.value,
          article,
        );
        const odd = article![owner] as AnyRecord;
        assertEquals(odd.type, "__proto__");
        assertEquals(odd.id, "constructor");
        assertStrictEquals(Object.getPrototypeOf(odd), Object.prototype);
        const info = jsonApiOf(person);
        assert(info !== undefined);
        assert(Object.hasOwn(info.relationships, "__proto__"));
        assertStrictEquals(
          Object.getPrototypeOf(info.relationships),
          Object.prototype,
        );
        assertNotPolluted();
      },
    );

    await t.step(
      `a JSON:API error document with __proto__ keys is a GrabError (casing ${casing})`,
      async () => {
        const api = createGrab(server.url, {
          format: "json-api",
          casing,
          retry: NO_RETRY,
          timeout: TIMEOUT,
        });
        const [data, error] = await api("GET /jsonapi-error");
        assertStrictEquals(data, null);
        assert(error instanceof GrabError);
        assertEquals(error.statusCode, 422);
        assertEquals(error.message, "bad");
        assertNotPolluted();
      },
    );
  }
});

const SECRETS = {
  authorization: "Bearer auth-secret-a1b2",
  cookie: "sid=cookie-secret-c3d4",
  proxy: "Basic proxy-secret-e5f6",
  query: "query-secret-g7h8",
  option: "option-secret-i9j0",
  password: "userinfo-secret-k1l2",
};
const SECRET_VALUES = Object.values(SECRETS).map((value) =>
  value.replace(/^\w+[ =]/, "")
);

function assertNoSecret(error: unknown, label: string): void {
  assert(error instanceof Error, `${label}: an Error`);
  const views: [string, string][] = [
    ["message", error.message],
    ["String()", String(error)],
    ["JSON.stringify()", JSON.stringify(error)],
    ["url", String((error as { url?: unknown }).url ?? "")],
    [
      "issues",
      JSON.stringify((error as { issues?: unknown }).issues ?? null),
    ],
  ];
  for (const [view, text] of views) {
    for (const secret of SECRET_VALUES) {
      assert(
        !text.includes(secret),
        `${label}: ${view} contains a secret: ${text}`,
      );
    }
    assertNotMatch(text, /secret/, `${label}: ${view}`);
  }
}

Deno.test("createGrab() keeps secrets out of errors", async (t) => {
  await using server = startServer({
    "/unauthorised": () => json({ message: "no" }, { status: 401 }),
    "/not-json": () => new Response("<html>"),
    "/big": () => json({ filler: "x".repeat(4096) }),
    "/ok": () => json({ ok: true }),
    "/slow": (request) =>
      new Promise<Response>((resolve) => {
        request.signal.addEventListener("abort", () =>
          resolve(new Response(null)));
      }),
  });
  const headers = {
    Authorization: SECRETS.authorization,
    Cookie: SECRETS.cookie,
    "X-Api-Key": SECRETS.proxy,
  };
  const grab = createGrab(server.url, {
    headers,
    retry: NO_RETRY,
    timeout: TIMEOUT,
  });
  const query = { "api_key": SECRETS.option };
  const token = `?token=${SECRETS.query}`;
  const failingSchema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: () => ({ issues: [{ message: "no" }] }),
    },
  };

  await t.step("GrabError", async () => {
    const [, error] = await grab(`GET /unauthorised${token}`, { query });
    assert(error instanceof GrabError);
    assertEquals(error.statusCode, 401);
    assertNoSecret(error, "GrabError");
  });

  const port = closedPort();
  const transportCases: [string, () => Promise<unknown>, string][] = [
    [
      "network",
      async () =>
        (await grab(`GET http://127.0.0.1:${port}/x${token}`, { query }))[1],
      "network",
    ],
    [
      "abort",
      async () =>
        (await grab(`GET /slow${token}`, {
          query,
          signal: AbortSignal.abort(),
        }))[1],
      "abort",
    ],
    [
      "timeout",
      async () => {
        using time = new FakeTime();
        const before = server.requests.length;
        const result = watch(grab(`GET /slow${token}`, { query, timeout: 20 }));
        await until(
          time,
          () => server.requests.length === before + 1,
          "the request",
        );
        await time.tickAsync(20);
        return (await settle(time, result))[1];
      },
      "timeout",
    ],
    [
      "parse",
      async () => (await grab(`GET /not-json${token}`, { query }))[1],
      "parse",
    ],
    [
      "too-large",
      async () =>
        (await grab(`GET /big${token}`, { query, maxBodyBytes: 16 }))[1],
      "too-large",
    ],
    [
      "schema",
      async () =>
        (await grab(`GET /ok${token}`, { query, schema: failingSchema }))[1],
      "schema",
    ],
  ];
  for (const [name, run, kind] of transportCases) {
    await t.step(`GrabTransportError of kind ${name}`, async () => {
      const error = await run();
      assert(error instanceof GrabTransportError);
      assertStrictEquals(error.kind, kind);
      assertNoSecret(error, `GrabTransportError ${name}`);
    });
  }

  await t.step(
    "URL userinfo is refused before any request, without the password",
    async () => {
      const before = server.requests.length;
      const host = server.url.replace("http://", "");
      const target =
        `http://user:${SECRETS.password}@${host}/ok${token}` as const;
      assertNoSecret(
        await assertRejects(() => grab(`GET ${target}`), GrabValidationError),
        "userinfo target",
      );
      assertNoSecret(
        assertThrows(
          () => createGrab(`http://user:${SECRETS.password}@${host}/`),
          GrabValidationError,
        ),
        "userinfo base",
      );
      assertNoSecret(
        assertThrows(() => new Call(`GET ${target}`), GrabValidationError),
        "userinfo Call",
      );
      assertStrictEquals(server.requests.length, before);
    },
  );

  await t.step("GrabValidationError of a missing path parameter", async () => {
    const error = await assertRejects(
      () => grab(`GET /users/:id${token}`, { query, params: {} }),
      GrabValidationError,
    );
    assertNoSecret(error, "missing parameter");
  });

  await t.step("GrabValidationError of a JSON:API body", async () => {
    const error = await assertRejects(
      () =>
        grab(`POST /ok${token}`, {
          query,
          format: "json-api",
          body: { title: "no type", token: 1n },
        }),
      GrabValidationError,
    );
    assertNoSecret(error, "JSON:API body");
  });

  await t.step("GrabValidationError of a header with CR LF", async () => {
    const error = await assertRejects(
      () =>
        grab(`GET /ok${token}`, {
          headers: { "X-Token": `${SECRETS.authorization}\r\nX-Evil: 1` },
        }),
      GrabValidationError,
    );
    assertNoSecret(error, "CR LF header");
  });

  await t.step(
    "the demo prints no URL with userinfo or a query",
    async () => {
      const demo = new URL("../examples/demo.ts", import.meta.url);
      const output = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--allow-net=127.0.0.1", demo.pathname],
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1" },
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      assertEquals(
        output.code,
        0,
        new TextDecoder().decode(output.stderr),
      );
      assertMatch(stdout, /GrabError/);
      for (const url of stdout.match(/https?:\/\/\S+/g) ?? []) {
        assertNotMatch(url, /@|\?/, `the demo printed ${url}`);
      }
      for (const secret of SECRET_VALUES) {
        assert(!stdout.includes(secret));
      }
    },
  );
});

Deno.test("createGrab() refuses CR, LF and NUL in headers", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const bad: [string, Record<string, string>][] = [
    ["CR LF in a value", { "X-A": "a\r\nInjected: 1" }],
    ["LF in a value", { "X-A": "a\nInjected: 1" }],
    ["CR in a value", { "X-A": "a\rb" }],
    ["NUL in a value", { "X-A": "a\0b" }],
    ["CR LF in a name", { "X-A\r\nInjected": "1" }],
    ["NUL in a name", { "X-A\0": "1" }],
  ];

  for (const [name, headers] of bad) {
    await t.step(`factory static headers: ${name} throws at createGrab`, () => {
      assertThrows(
        () => createGrab(server.url, { headers }),
        GrabValidationError,
      );
    });

    await t.step(`a header function: ${name} rejects`, async () => {
      const before = server.requests.length;
      const grab = createGrab(server.url, {
        headers: () => headers,
        retry: NO_RETRY,
        timeout: TIMEOUT,
      });
      await assertRejects(() => grab("GET /x"), GrabValidationError);
      assertStrictEquals(server.requests.length, before);
    });

    await t.step(`call headers: ${name} rejects`, async () => {
      const before = server.requests.length;
      const grab = createGrab(server.url, {
        headers: { authorization: "Bearer fine" },
        retry: NO_RETRY,
        timeout: TIMEOUT,
      });
      await assertRejects(
        () => grab("GET /x", { headers }),
        GrabValidationError,
      );
      const open = createGrab(server.url, {
        retry: NO_RETRY,
        timeout: TIMEOUT,
      });
      await assertRejects(
        () => open("GET /x", { headers: Object.entries(headers) }),
        GrabValidationError,
      );
      await assertRejects(
        () => new Call("GET /x", server.url).send({ headers }),
        GrabValidationError,
      );
      assertStrictEquals(server.requests.length, before);
    });
  }
});
