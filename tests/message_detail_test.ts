/**
 * What a failure's message tells beyond its kind: how large a body over
 * the cap said it was, how many issues a schema found and the first of
 * them, and on the last of how many attempts a time limit or a broken body
 * ended the grab.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";
import { shortBody, silent, startFaultServer } from "./_faults.ts";

function transport(error: unknown): GrabTransportError {
  assert(
    (error as { name?: unknown })?.name === "GrabTransportError",
    String(error),
  );
  return error as GrabTransportError;
}

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
    "Cannot complete the request: the attemptTimeout (40 ms) passed on the last of 3 attempts: " +
      `GET ${server.url}/slow`,
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
