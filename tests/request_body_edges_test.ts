/**
 * Request bodies as a careless caller gives them: views of a buffer that
 * changed size under them, blobs whose class cannot stream them. Bytes that
 * cannot be sent are a `GrabValidationError` before any request, never a
 * network failure and never an empty body in their place.
 *
 * @module
 */

import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import createGrab, { Call, GrabValidationError } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { BODY_WAYS } from "./_bounds.ts";

/** A server that answers with the length and the bytes it received, as hex. */
function echoServer() {
  // The bytes sent here are all below 0x80: the text read is each of them.
  return startServer((request, seen) =>
    json({
      length: request.headers.get("content-length"),
      hex: Array.from(seen.body, (c) =>
        c.charCodeAt(0).toString(16).padStart(2, "0"))
        .join(""),
    })
  );
}

/**
 * Views of a resizable `ArrayBuffer` that was made smaller than the view
 * reaches: their bytes are gone, and `fetch` throws a `TypeError` for them.
 */
function outOfBounds(): [string, () => ArrayBufferView][] {
  const shrunk = <T>(view: (buffer: ArrayBuffer) => T): () => T => () => {
    const buffer = new ArrayBuffer(8, { maxByteLength: 16 });
    new Uint8Array(buffer).set([1, 2, 3, 4, 5, 6, 7, 8]);
    const made = view(buffer);
    buffer.resize(2);
    return made;
  };
  return [
    ["a Uint8Array", shrunk((buffer) => new Uint8Array(buffer, 4, 4))],
    ["a DataView", shrunk((buffer) => new DataView(buffer, 4, 4))],
    [
      "a length-tracking Uint16Array",
      shrunk((buffer) => new Uint16Array(buffer, 4)),
    ],
  ];
}

Deno.test("a view out of the bounds of its shrunk ArrayBuffer is refused before any request", async (t) => {
  await using server = echoServer();
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  for (const [label, body] of outOfBounds()) {
    // POST is sent as given; PUT, retried, is copied first.
    for (const method of ["POST", "PUT"] as const) {
      for (const [way, options] of BODY_WAYS) {
        await t.step(`${label}, ${method} (${way})`, async () => {
          const error = await assertRejects(
            () => grab(`${method} /bytes`, { ...options, body: body() }),
            GrabValidationError,
          );
          assertStringIncludes(
            error.message,
            "out of the bounds of its ArrayBuffer",
          );
        });
      }
    }
    await t.step(`${label} (Call.send)`, async () => {
      const error = await assertRejects(
        () => new Call("POST /bytes", server.url).send({ body: body() }),
        GrabValidationError,
      );
      assertStringIncludes(
        error.message,
        "out of the bounds of its ArrayBuffer",
      );
    });
  }

  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });
});

Deno.test("a view of a resizable ArrayBuffer within its bounds is sent as exactly its bytes", async (t) => {
  await using server = echoServer();
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  for (const method of ["POST", "PUT"] as const) {
    await t.step(method, async () => {
      const buffer = new ArrayBuffer(8, { maxByteLength: 16 });
      new Uint8Array(buffer).set([1, 2, 3, 4, 5, 6, 7, 8]);
      // Grown after the view was made: a fixed view keeps its four bytes.
      const view = new Uint8Array(buffer, 3, 4);
      buffer.resize(12);
      const [data, error] = await grab(`${method} /bytes`, { body: view });
      assertEquals(error, null);
      assertEquals(data, { length: "4", hex: "04050607" });
    });
  }
});

Deno.test("a JSON body nested as deep as JSON writes it is sent as JSON writes it", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ sent: seen.body })
  );
  const grab = createGrab(server.url, { retry: 0 });
  // Far below the 10,000 levels the walk allows, far above what a replacer
  // leaves the stack for.
  const bodies: [string, unknown][] = [
    ["arrays", nest(5_000, (inner) => [inner])],
    ["objects", nest(8_000, (inner) => ({ next: inner }))],
  ];
  for (const [label, body] of bodies) {
    await t.step(label, async () => {
      const [data, error] = await grab("POST /deep", { body });
      assertEquals(error, null);
      assertEquals(data, { sent: JSON.stringify(body) });
    });
  }
});

Deno.test("casing: a JSON body nested as deep as JSON writes it is sent with its keys renamed", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ sent: seen.body })
  );
  const grab = createGrab(server.url, { retry: 0, casing: "camelCase" });
  const bodies: [string, unknown, unknown][] = [
    [
      "arrays",
      nest(5_000, (inner) => [inner]),
      nest(5_000, (inner) => [inner]),
    ],
    [
      "objects",
      nest(8_000, (inner) => ({ nextItem: inner })),
      nest(8_000, (inner) => ({ next_item: inner })),
    ],
    [
      "objects in arrays",
      nest(4_000, (inner) => ({ nextItem: [inner] })),
      nest(4_000, (inner) => ({ next_item: [inner] })),
    ],
  ];
  for (const [label, body, wire] of bodies) {
    await t.step(label, async () => {
      const [data, error] = await grab("POST /deep", { body });
      assertEquals(error, null);
      assertEquals(data, { sent: JSON.stringify(wire) });
    });
  }

  await t.step("two keys that become one, deep down: refused", async () => {
    const body = nest(8_000, (inner) => ({ nextItem: inner }));
    let bottom = body as Record<string, unknown>;
    while (typeof bottom.nextItem === "object") {
      bottom = bottom.nextItem as Record<string, unknown>;
    }
    bottom.next_item = 2;
    const error = await assertRejects(
      () => grab("POST /deep", { body }),
      GrabValidationError,
    );
    assertStringIncludes(error.message, '"nextItem" and "next_item"');
  });
  assertEquals(server.requests.length, 3);
});

/** A value nested `depth` levels deep around the number 1. */
function nest(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

Deno.test("a string body with a lone surrogate is refused before any request", async (t) => {
  await using server = echoServer();
  const grab = createGrab(server.url);
  // Half of "😀" alone: UTF-8 would send U+FFFD (EF BF BD) in its place.
  for (const text of ["a\ud83db", "\ude00", "ok\ud83d"]) {
    await t.step(JSON.stringify(text), async () => {
      const error = await assertRejects(
        () => grab("POST /text", { body: text }),
        GrabValidationError,
      );
      assertStringIncludes(error.message, "lone surrogate");
    });
  }
  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });
  await t.step(
    "a whole pair is sent, and JSON escapes a lone half",
    async () => {
      const [pair] = await grab<{ hex: string }>("POST /text", { body: "😀" });
      // The server's text holds the one code point: its first unit is the
      // high half (a U+FFFD in its place would read "fffd").
      assertEquals(pair?.hex, "d83d");
      const [escaped] = await grab<{ hex: string }>("POST /json", {
        body: { text: "a\ud83db" },
      });
      // {"text":"a\ud83db"}, the escape spelt out in ASCII.
      assertEquals(
        escaped?.hex,
        Array.from(
          '{"text":"a\\ud83db"}',
          (c) => c.charCodeAt(0).toString(16).padStart(2, "0"),
        ).join(""),
      );
    },
  );
});

/** A blob of a class whose own `stream()`, which `fetch` calls, throws. */
class ThrowingBlob extends Blob {
  override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
    throw new Error("the blob cannot be read");
  }
}

Deno.test("a blob whose stream() throws is refused before any request", async (t) => {
  await using server = echoServer();
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  const ways = BODY_WAYS.filter(([, options]) => !options.onUploadProgress);
  // POST is sent as given; PUT, retried, is held for its attempts.
  for (const method of ["POST", "PUT"] as const) {
    for (const [way, options] of ways) {
      await t.step(`${method} (${way})`, async () => {
        const body = new ThrowingBlob(["abc"]);
        const error = await assertRejects(
          () => grab(`${method} /blob`, { ...options, body }),
          GrabValidationError,
        );
        assertStringIncludes(error.message, "the blob cannot be read");
      });
    }
  }
  await t.step("Call.send", async () => {
    const body = new ThrowingBlob(["abc"]);
    await assertRejects(
      () => new Call("POST /blob", server.url).send({ body }),
      GrabValidationError,
    );
  });

  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });
});

Deno.test("a blob whose class hands out one stream is sent whole", async () => {
  await using server = echoServer();
  const grab = createGrab(server.url, { retry: 0 });
  class OneStream extends Blob {
    #stream = new Blob(["abc"]).stream();
    override stream(): ReadableStream<Uint8Array<ArrayBuffer>> {
      return this.#stream;
    }
  }
  const body = new OneStream(["abc"]);
  const [data, error] = await grab("POST /blob", { body });
  assertEquals(error, null);
  assertEquals(data, { length: "3", hex: "616263" });
});

Deno.test("a Content-Length the body belies is refused before any request", async (t) => {
  // Node's fetch fails such a request once it has begun, which a retry
  // would repeat; Deno sends the length it counts. Neither is what the
  // caller wrote, so grab refuses it wherever it runs.
  await using server = echoServer();
  const grab = createGrab(server.url);
  // A length that none of these bodies has, and no port (in a message) is.
  const length = "9876543";
  const belied: [string, Record<string, unknown>][] = [
    ["a string", { body: "x" }],
    ["JSON", { body: { a: 1 } }],
    ["bytes", { body: new Uint8Array(3) }],
    ["an ArrayBuffer", { body: new ArrayBuffer(3) }],
    ["a blob", { body: new Blob(["ab"]) }],
    ["search parameters", { body: new URLSearchParams("a=1") }],
    ["no body", {}],
  ];
  for (const [what, options] of belied) {
    await t.step(what, async () => {
      const error = await assertRejects(
        () =>
          grab("PUT /", { ...options, headers: { "Content-Length": length } }),
        GrabValidationError,
      );
      assertStringIncludes(error.message, "Content-Length");
      assertEquals(error.message.includes(length), false);
    });
  }
  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });
  await t.step("a length that is the body's is sent", async () => {
    const told: [string, Record<string, unknown>][] = [
      ["1", { body: "x" }],
      ["3", { body: "é!" }],
      ["7", { body: { a: 1 } }],
      ["2", { body: new Blob(["ab"]) }],
      ["0", {}],
    ];
    for (const [length, options] of told) {
      const [data, error] = await grab<{ length: string | null }>("PUT /", {
        ...options,
        headers: { "content-length": length },
      });
      assertEquals(error, null);
      assertEquals(data?.length, length === "0" ? data?.length : length);
    }
  });
  await t.step("a length with leading zeros says the same count", async () => {
    // RFC 9110's Content-Length is 1*DIGIT; Node's fetch and Deno's send
    // these as the body's length.
    const told: [string, Record<string, unknown>][] = [
      ["05", { body: "hello" }],
      ["003", { body: new Uint8Array(3) }],
      ["00", {}],
    ];
    for (const [length, options] of told) {
      const [data, error] = await grab<{ hex: string }>("PUT /", {
        ...options,
        headers: { "content-length": length },
      });
      assertEquals(error, null);
      assertEquals(data?.hex.length, 2 * Number(length));
    }
  });
  await t.step(
    "a stream's, counted only as it goes, is left to fetch",
    async () => {
      const body = new Blob(["abc"]).stream();
      const [data, error] = await grab<{ hex: string }>("PUT /", {
        body,
        headers: { "content-length": "3" },
      });
      assertEquals(error, null);
      assertEquals(data?.hex, "616263");
    },
  );
});

Deno.test("a Content-Length no body can have, or with a form, is refused before any request", async (t) => {
  // Node's fetch sends a form with a length it belies and waits for bytes
  // that never come, or fails it as the network's, and a retry repeats it;
  // Node and Bun fail a stream's that is no count of bytes as they send it.
  // Deno sends its own count in either case.
  await using server = echoServer();
  const grab = createGrab(server.url);
  const form = () => {
    const made = new FormData();
    made.append("a", "b");
    return made;
  };
  const stream = () => new Blob(["abc"]).stream();
  const refused: [string, string, () => unknown][] = [
    ["a form", "9876543", form],
    ["a form, with a round length", "1048576", form],
    ["a stream, with words", "three", stream],
    ["a stream, with a negative length", "-1", stream],
    ["a stream, with a fraction", "3.0", stream],
    ["a stream, with a hexadecimal length", "0x3", stream],
  ];
  for (const [what, length, body] of refused) {
    await t.step(what, async () => {
      const error = await assertRejects(
        () =>
          grab("PUT /", {
            body: body() as BodyInit,
            headers: { "Content-Length": length },
          }),
        GrabValidationError,
      );
      assertStringIncludes(error.message, "Content-Length");
      assertEquals(error.message.includes(length), false);
    });
  }
  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });
});

Deno.test("a header function's Content-Length the body belies is refused before any request", async (t) => {
  // Node's fetch failed such a request as the network's, and retried it.
  await using server = echoServer();
  const grab = createGrab(server.url, {
    headers: () => ({ "Content-Length": "9876543" }),
  });
  const belied: [string, Record<string, unknown>][] = [
    ["a string", { body: "x" }],
    ["JSON", { body: { a: 1 } }],
    ["bytes", { body: new Uint8Array(3) }],
  ];
  for (const [what, options] of belied) {
    await t.step(what, async () => {
      const error = await assertRejects(
        () => grab("PUT /", options),
        GrabValidationError,
      );
      assertStringIncludes(error.message, "Content-Length");
      assertEquals(error.message.includes("9876543"), false);
    });
  }
  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });
  await t.step("the call's own length replaces the function's", async () => {
    const [data, error] = await grab<{ length: string | null }>("PUT /", {
      body: "x",
      headers: { "content-length": "1" },
    });
    assertEquals(error, null);
    assertEquals(data?.length, "1");
  });
});
