/**
 * What a failure's message tells the caller beyond its kind: which limit
 * passed and its milliseconds, what a 2xx body that is no JSON:API document
 * was, how large a body over the cap said it was, how many issues a schema
 * found and the first of them, and on the last of how many attempts a
 * network failure, a time limit or a broken body ended the grab.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";
import {
  head,
  neverEnds,
  shortBody,
  silent,
  startFaultServer,
  untilClosed,
  write,
} from "./_faults.ts";
import { runChild } from "./_bounds.ts";

function transport(error: unknown): GrabTransportError {
  assert(
    (error as { name?: unknown })?.name === "GrabTransportError",
    String(error),
  );
  return error as GrabTransportError;
}

Deno.test("a timeout's message names the timeout option and its milliseconds, and says to raise it", async () => {
  await using server = startFaultServer(silent);
  const grab = createGrab(server.url, { retry: 0, timeout: 60 });
  const [, failed] = await grab("GET /slow");
  const error = transport(failed);
  assertEquals(error.kind, "timeout");
  assertEquals(
    error.message,
    `Cannot complete the request: the timeout (60 ms) passed; raise timeout, or set it to false: GET ${server.url}/slow`,
  );
});

Deno.test("a timeout that passes while a header function runs names the timeout and its milliseconds", async () => {
  await using server = startServer(() => new Response("{}"));
  let release = () => {};
  const hanging = new Promise<HeadersInit>((resolve) => {
    release = () => resolve({});
  });
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: 40,
    headers: () => hanging,
  });
  const [, failed] = await grab("GET /slow");
  release();
  const error = transport(failed);
  assertEquals(error.kind, "timeout");
  assertStringIncludes(error.message, "the timeout (40 ms) passed");
  assertEquals(server.requests.length, 0);
});

Deno.test("a timeout that passes while the body streams names the timeout and its milliseconds", async () => {
  await using server = startFaultServer(neverEnds);
  const grab = createGrab(server.url, { retry: 0, timeout: 60 });
  const [, failed] = await grab("GET /slow");
  const error = transport(failed);
  assertEquals(error.kind, "timeout");
  assertStringIncludes(error.message, "the timeout (60 ms) passed");
});

Deno.test("an error status whose body stalls: the cause names which limit passed, attemptTimeout or timeout", async () => {
  await using server = startFaultServer(async (conn) => {
    const headers = { "content-type": "application/json" };
    await write(
      conn,
      head("404 Not Found", { ...headers, "content-length": "100" }),
    );
    await untilClosed(conn);
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const seen: string[] = [];
  for (const options of [{ attemptTimeout: 50 }, { timeout: 70 }]) {
    // The limit is to pass while the body stalls, after the head: a machine
    // so busy that the head came later is asked again, a few times at most.
    let [, error] = await grab("GET /missing", options);
    for (let tries = 1; tries < 5 && error?.name !== "GrabError"; tries++) {
      [, error] = await grab("GET /missing", options);
    }
    assert(error?.name === "GrabError", String(error));
    assertEquals(error.statusCode, 404);
    assertEquals(error.body, null);
    seen.push(transport(error.cause).message);
  }
  assertEquals(seen, [
    `Cannot complete the request: the attemptTimeout (50 ms) passed; raise attemptTimeout, or set it to false: GET ${server.url}/missing`,
    `Cannot complete the request: the timeout (70 ms) passed; raise timeout, or set it to false: GET ${server.url}/missing`,
  ]);
});

Deno.test("the first JSON:API grab's timeout names the milliseconds the caller gave, not what the module's load left", async () => {
  // In a child: the JSON:API module loads on a process's first such grab.
  const { kind, message } = await runChild<{ kind: string; message: string }>(
    "./_codec_timeout_child.ts",
    ["--allow-net=127.0.0.1", "--allow-read=."],
  );
  assertEquals(kind, "timeout");
  assertStringIncludes(message, "the timeout (60 ms) passed");
});

Deno.test("a 2xx JSON body that is no JSON:API document: the message names the status and the Content-Type", async () => {
  await using server = startServer(() =>
    Response.json({ hello: "world" }, { status: 201 })
  );
  const grab = createGrab(server.url, { retry: 0, format: "json-api" });
  const [data, failed, meta] = await grab("POST /things", { body: null });
  assertEquals(data, null);
  assertEquals(meta, { statusCode: 0 });
  const error = transport(failed);
  assertEquals(error.kind, "parse");
  assertEquals(
    error.message,
    'Cannot read the response: the body of the 201 response (Content-Type "application/json") ' +
      'is not a valid JSON:API document (the document has no data, meta or extension member); read it with format "json" to see what the server sent: ' +
      `POST ${server.url}/things`,
  );
});

Deno.test("a 2xx JSON body with no Content-Type that is no JSON:API document says there was none", async () => {
  await using server = startServer(() => {
    const response = new Response("[1, 2]");
    response.headers.delete("content-type");
    return response;
  });
  const grab = createGrab(server.url, { retry: 0, format: "json-api" });
  const [, failed] = await grab("GET /things");
  const error = transport(failed);
  assertEquals(error.kind, "parse");
  assertStringIncludes(
    error.message,
    "the body of the 200 response (no Content-Type) is not a valid JSON:API document",
  );
});

Deno.test("a network failure after retries says how many attempts were made", async () => {
  await using server = startFaultServer(() => Promise.resolve());
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
    timeout: 10_000,
  });
  const [, failed] = await grab("GET /gone");
  const error = transport(failed);
  assertEquals(error.kind, "network");
  assertEquals(server.connections, 3);
  assertStringIncludes(
    error.message,
    "Cannot complete the request: the network failed after 3 attempts (",
  );
  assertStringIncludes(error.message, `: GET ${server.url}/gone`);
});

Deno.test("a network failure of a single attempt does not count it", async () => {
  await using server = startFaultServer(() => Promise.resolve());
  const grab = createGrab(server.url, { retry: 0 });
  const [, failed] = await grab("GET /gone");
  const error = transport(failed);
  assertEquals(error.kind, "network");
  assertStringIncludes(
    error.message,
    "Cannot complete the request: the network failed (",
  );
});

/** A Standard Schema that refuses every value with `issues`. */
function refusing(issues: unknown[]) {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: () => ({ issues }),
    },
  };
}

Deno.test("a body over maxBodyBytes whose Content-Length says so: the message names the declared size", async () => {
  await using server = startServer(() =>
    new Response(JSON.stringify("x".repeat(1998)), {
      headers: { "content-type": "application/json" },
    })
  );
  const grab = createGrab(server.url, { retry: 0, maxBodyBytes: 100 });
  const [, failed] = await grab("GET /big");
  const error = transport(failed);
  assertEquals(error.kind, "too-large");
  assertEquals(
    error.message,
    "Cannot read the response: the body (2000 bytes, as its Content-Length says) is over maxBodyBytes (100 bytes); " +
      `raise maxBodyBytes, or read it with responseType "stream": GET ${server.url}/big`,
  );
});

Deno.test("a body over maxBodyBytes with no length declared: the message says more than the cap came, counted", async () => {
  await using server = startServer(() => {
    const chunk = new TextEncoder().encode("x".repeat(64));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ === 10) return controller.close();
        controller.enqueue(chunk);
      },
    });
    return new Response(body, {
      headers: { "content-type": "application/json" },
    });
  });
  const grab = createGrab(server.url, { retry: 0, maxBodyBytes: 100 });
  const [, failed] = await grab("GET /big");
  const error = transport(failed);
  assertEquals(error.kind, "too-large");
  assertStringIncludes(
    error.message,
    "Cannot read the response: the body (more than 100 bytes, counted as it came) is over maxBodyBytes (100 bytes); ",
  );
});

Deno.test("a declared length past any number (a custom fetch's 1e400): the message names no such size", async () => {
  await using server = startServer(() => Response.json({ id: 7 }));
  const grab = createGrab(server.url, {
    retry: 0,
    maxBodyBytes: 100,
    // No platform fetch lets such a length through; a custom one can.
    fetch: async (input, init) => {
      const real = await fetch(input, init);
      const headers = new Headers(real.headers);
      headers.set("content-length", "1e400");
      return new Response(real.body, { status: real.status, headers });
    },
  });
  const [, failed] = await grab("GET /item");
  const error = transport(failed);
  assertEquals(error.kind, "too-large");
  assertStringIncludes(
    error.message,
    "Cannot read the response: the body (more than 100 bytes, as its Content-Length says) is over maxBodyBytes (100 bytes); ",
  );
});

Deno.test("a body that fails the schema: the message counts the issues and quotes the first, with its path", async () => {
  await using server = startServer(() => Response.json({ user: { id: "7" } }));
  const grab = createGrab(server.url, { retry: 0 });
  const schema = refusing([
    {
      message: "Expected number, received string",
      path: ["user", { key: "id" }],
    },
    { message: "Required", path: ["user", "name"] },
  ]);
  const [, failed] = await grab("GET /user", { schema });
  const error = transport(failed);
  assertEquals(error.kind, "schema");
  assertEquals(
    error.message,
    "Cannot accept the response: the body fails the schema " +
      "(2 issues; the first at /user/id: Expected number, received string): " +
      `GET ${server.url}/user`,
  );
});

Deno.test("a schema issue's message is quoted redacted and cut, and a path-less issue is at the root", async () => {
  await using server = startServer(() => Response.json([1]));
  const grab = createGrab(server.url, { retry: 0 });
  const long = `see https://user:pw@api.test/doc?key=secret ${
    "y".repeat(5000)
  }`;
  const schema = refusing([{ message: long }]);
  const [, failed] = await grab("GET /list", { schema });
  const error = transport(failed);
  assertEquals(error.kind, "schema");
  assertStringIncludes(
    error.message,
    "the body fails the schema (1 issue; at the root: see https://api.test/doc?… yyy",
  );
  assert(!error.message.includes("secret"), error.message);
  assert(!error.message.includes("pw@"), error.message);
  assertStringIncludes(error.message, "… (cut at 2000 characters)): GET ");
});

Deno.test("an NDJSON line that fails the schema: the message quotes the first issue", async () => {
  await using server = startServer(() =>
    new Response('{"id":1}\n{"id":"x"}\n', {
      headers: { "content-type": "application/x-ndjson" },
    })
  );
  const grab = createGrab(server.url, { retry: 0 });
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: (value: unknown) =>
        typeof (value as { id: unknown }).id === "number"
          ? { value }
          : { issues: [{ message: "Expected number", path: ["id"] }] },
    },
  };
  const [lines, failed] = await grab("GET /lines", {
    responseType: "ndjson",
    schema,
  });
  assertEquals(failed, null);
  const seen: unknown[] = [];
  for await (const line of lines!) seen.push(line);
  assertEquals(seen, [{ id: 1 }]);
  const error = transport(lines!.error);
  assertEquals(error.kind, "schema");
  assertStringIncludes(
    error.message,
    "fails the schema (1 issue; at /id: Expected number)",
  );
});

Deno.test("an attemptTimeout on the last of several attempts says how many were made", async () => {
  await using server = startFaultServer(silent);
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
    timeout: 10_000,
    attemptTimeout: 40,
  });
  const [, failed] = await grab("GET /slow");
  const error = transport(failed);
  assertEquals(error.kind, "timeout");
  assertEquals(server.requests.length, 3);
  assertEquals(
    error.message,
    "Cannot complete the request: the attemptTimeout (40 ms) passed on the last of 3 attempts; " +
      `raise attemptTimeout, or set it to false: GET ${server.url}/slow`,
  );
});

Deno.test("a body that broke off on the last of several attempts says how many were made", async () => {
  await using server = startFaultServer(shortBody());
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
    timeout: 10_000,
  });
  const [, failed] = await grab("GET /short");
  const error = transport(failed);
  assertEquals(error.kind, "network");
  assertEquals(server.requests.length, 2);
  assertStringIncludes(
    error.message,
    "Cannot read the response: the body of the 200 response broke off before its end on the last of 2 attempts (",
  );
});
