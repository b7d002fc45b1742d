import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import createGrab, {
  Call,
  GrabTransportError,
  GrabValidationError,
} from "../mod.ts";
import { json, startServer } from "./_server.ts";

Deno.test("new Call()", async (t) => {
  await t.step("exposes method and the resolved url", () => {
    const call = new Call("PATCH /users/:id", "https://api.test/v1/");
    assertEquals(call.method, "PATCH");
    assert(call.url instanceof URL);
    assertEquals(call.url.href, "https://api.test/v1/users/:id");
  });

  const bad: [string, string | undefined][] = [
    ["get /x", "https://api.test"],
    ["GET /x", undefined],
    ["TRACE /x", "https://api.test"],
    ["GET https://user:pw@api.test/x", undefined],
  ];
  for (const [endpoint, base] of bad) {
    await t.step(
      `throws synchronously for ${endpoint} with base ${base}`,
      () => {
        assertThrows(() => new Call(endpoint, base), GrabValidationError);
      },
    );
  }
});

Deno.test("Call.url is a copy: changing it changes neither the call nor its messages", async () => {
  await using server = startServer((_request, seen) =>
    json({ path: seen.url.pathname, q: seen.url.search })
  );
  const call = new Call("GET /users/:id?page=1", server.url);
  const url = call.url;
  url.pathname = "/admin/:id";
  url.search = "?token=secret";
  url.host = "example.com";
  call.url.pathname = "/other";
  assertEquals(call.url.href, `${server.url}/users/:id?page=1`);
  assert(call.url !== call.url);
  const outcome = await call.send({ params: { id: 7 }, retry: 0 });
  assert(outcome.ok);
  assertEquals(outcome.body, { path: "/users/7", q: "?page=1" });
  const error = await assertRejects(
    () => call.send({ params: {} }),
    GrabValidationError,
  );
  assertEquals(
    error.message,
    `Cannot send GET ${server.url}/users/:id: 1 problem in the request (Cannot fill path parameter "id": value is missing)`,
  );
});

Deno.test("a header function outside createGrab is refused, saying where it goes", async () => {
  await using server = startServer(() => json({}));
  const headers = () => ({ authorization: "Bearer t" });
  const message =
    'Cannot use the option "headers": it must be a Headers, a record or a list of pairs; a function of headers is an option of createGrab';
  const sent = await assertRejects(
    // @ts-expect-error: send takes no header function
    () => new Call("GET /x", server.url).send({ headers }),
    GrabValidationError,
  );
  assertEquals(sent.issues.map((issue) => issue.message), [message]);
  const grab = createGrab(server.url);
  // @ts-expect-error: a grab takes no header function
  const called = await assertRejects(() => grab("GET /x", { headers }));
  assert(called instanceof GrabValidationError);
  assertEquals(called.issues.map((issue) => issue.message), [message]);
  assertEquals(server.requests.length, 0);
});

Deno.test("Call.send()", async (t) => {
  await using server = startServer({
    "/json": (_request, seen) => json({ got: seen.body, q: seen.url.search }),
    "/teapot": () =>
      new Response("short and stout", {
        status: 418,
        statusText: "I'm a teapot",
      }),
    "/nothing": () => new Response(null, { status: 204 }),
    "/redirect": () => Response.redirect("http://127.0.0.1/elsewhere", 302),
  });

  await t.step("resolves a 2xx with the parsed body", async () => {
    const call = new Call("POST /json", server.url);
    const outcome = await call.send({ body: { a: 1 }, query: { b: [1, 2] } });
    assertEquals(outcome.ok, true);
    if (!outcome.ok) return;
    assertEquals(outcome.status, 200);
    assertEquals(outcome.empty, false);
    assertEquals(outcome.body, { got: '{"a":1}', q: "?b=1&b=2" });
    assertEquals(outcome.url, `${server.url}/json?b=1&b=2`);
  });

  await t.step("resolves a non-2xx with its text body", async () => {
    const outcome = await new Call("GET /teapot", server.url).send();
    assert(outcome.ok);
    assertEquals(outcome.status, 418);
    assertEquals(outcome.statusText, "I'm a teapot");
    assertEquals(outcome.body, "short and stout");
  });

  await t.step("marks an empty body", async () => {
    const outcome = await new Call("DELETE /nothing", server.url).send();
    assert(outcome.ok);
    assertEquals(outcome.empty, true);
    assertStrictEquals(outcome.body, null);
  });

  await t.step("comma-joins query arrays in json-api format", async () => {
    const outcome = await new Call("GET /json", server.url).send({
      format: "json-api",
      query: { include: ["a", "b"] },
    });
    assert(outcome.ok);
    assertEquals(outcome.body, { got: "", q: "?include=a%2Cb" });
  });

  await t.step(
    "serialises a json-api write and gives the document as sent",
    async () => {
      const outcome = await new Call("POST /json", server.url).send({
        format: "json-api",
        body: {
          type: "notes",
          text: "hi",
          author: { type: "people", id: "9" },
        },
      });
      assert(outcome.ok);
      // The server's answer is no JSON:API document: a grab would make it
      // kind "parse"; send gives it as it came, not denormalised.
      assertEquals(outcome.body, {
        got: JSON.stringify({
          data: {
            type: "notes",
            attributes: { text: "hi" },
            relationships: {
              author: { data: { type: "people", id: "9" } },
            },
          },
        }),
        q: "",
      });
    },
  );

  await t.step(
    "returns a transport failure, never rejects, for network errors",
    async () => {
      const outcome = await new Call("GET http://127.0.0.1:9/x").send({
        retry: 0,
      });
      assertEquals(outcome.ok, false);
      if (outcome.ok) return;
      assert(outcome.error instanceof GrabTransportError);
      assertEquals(outcome.error.kind, "network");
    },
  );

  await t.step("redirect: manual gives the 3xx itself", async () => {
    const outcome = await new Call("GET /redirect", server.url).send({
      redirect: "manual",
    });
    assert(outcome.ok);
    assertEquals(outcome.status, 302);
    assertEquals(server.requests.at(-1)?.url.pathname, "/redirect");
  });

  await t.step("rejects with GrabValidationError before sending", async () => {
    const before = server.requests.length;
    const call = new Call("GET /json/:id", server.url);
    await assertRejects(() => call.send({}), GrabValidationError);
    await assertRejects(
      () => call.send({ params: { id: 1 }, headers: { a: "\n" } }),
      GrabValidationError,
    );
    assertStrictEquals(server.requests.length, before);
  });
});

Deno.test("Call.send in JSON:API mode writes as a grab does, where 0.1.0 sent the body as it was", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ got: seen.body, type: seen.headers.get("content-type") })
  );
  const call = new Call("POST /notes", server.url);

  await t.step("a flat resource goes as a resource document", async () => {
    const outcome = await call.send({
      format: "json-api",
      body: { type: "notes", text: "hi" },
    });
    assert(outcome.ok);
    assertEquals(outcome.body, {
      got: '{"data":{"type":"notes","attributes":{"text":"hi"}}}',
      type: "application/vnd.api+json",
    });
  });

  await t.step(
    "a body that is no resource is refused before any request",
    async () => {
      const sent = server.requests.length;
      await assertRejects(
        () => call.send({ format: "json-api", body: [{ text: "hi" }] }),
        GrabValidationError,
      );
      assertEquals(server.requests.length, sent);
    },
  );

  await t.step(
    "the same JSON as a string goes as written, typed JSON:API",
    async () => {
      const outcome = await call.send({
        format: "json-api",
        body: JSON.stringify([{ text: "hi" }]),
      });
      assert(outcome.ok);
      assertEquals(outcome.body, {
        got: '[{"text":"hi"}]',
        type: "application/vnd.api+json",
      });
    },
  );
});
