import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertStringIncludes,
} from "@std/assert";
import { z } from "npm:zod@4.6.7";
import { z as z3 } from "npm:zod@3.25.76";
import * as v from "npm:valibot@1.5.0";
import { type } from "npm:arktype@2.2.9";
import createGrab, {
  type GrabStream,
  GrabTransportError,
  orThrow,
  paginate,
  type ServerSentEvent,
} from "../mod.ts";
import { json, startServer } from "./_server.ts";

/** Fails to compile unless `A` and `B` are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true : false;
function same<A, B>(_: Same<A, B>): void {}

const USER = { id: "7", name: "Ada" };

Deno.test("each library's transform gives the output, typed", async () => {
  await using server = startServer({ "/user": () => json(USER) });
  const grab = createGrab(server.url);

  const z4 = z.object({ id: z.string().transform(Number), name: z.string() });
  const [a, ae] = await grab("GET /user", { schema: z4 });
  assertEquals(ae, null);
  assertEquals(a, { id: 7, name: "Ada" });
  same<typeof a, { id: number; name: string } | null>(true);

  const zz3 = z3.object({
    id: z3.string().transform(Number),
    name: z3.string(),
  });
  const [b, be] = await grab("GET /user", { schema: zz3 });
  assertEquals(be, null);
  assertEquals(b, { id: 7, name: "Ada" });
  same<typeof b, { id: number; name: string } | null>(true);

  const vs = v.object({
    id: v.pipe(v.string(), v.transform(Number)),
    name: v.string(),
  });
  const [c, ce] = await grab("GET /user", { schema: vs });
  assertEquals(ce, null);
  assertEquals(c, { id: 7, name: "Ada" });
  same<typeof c, { id: number; name: string } | null>(true);

  const ak = type({
    id: type("string").pipe((s) => Number(s)),
    name: "string",
  });
  const [d, de] = await grab("GET /user", { schema: ak });
  assertEquals(de, null);
  assertEquals(d?.id, 7);
  same<typeof d, { id: number; name: string } | null>(true);
});

Deno.test("each library's failure is kind schema with issues", async () => {
  await using server = startServer({
    "/user": () => json({ id: 7, name: ["x"] }),
  });
  const grab = createGrab(server.url);
  const schemas = [
    z.object({ id: z.string(), name: z.string() }),
    z3.object({ id: z3.string(), name: z3.string() }),
    v.object({ id: v.string(), name: v.string() }),
    type({ id: "string", name: "string" }),
  ];
  for (const schema of schemas) {
    const [data, error] = await grab("GET /user?token=SECRET", {
      schema: schema as typeof schemas[0],
    });
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "schema");
    assert((error.issues?.length ?? 0) >= 2, String(error.issues?.length));
    assertStringIncludes(error.message, "2 issues");
    assert(!error.message.includes("SECRET"), error.message);
  }
});

Deno.test("async refinements", async () => {
  await using server = startServer({ "/user": () => json(USER) });
  const grab = createGrab(server.url);
  const zr = z.object({ id: z.string() }).refine(async (u) => {
    await new Promise((r) => setTimeout(r, 1));
    return u.id === "8";
  }, { message: "not 8" });
  const [, e1] = await grab("GET /user", { schema: zr });
  assertEquals((e1 as GrabTransportError).kind, "schema");
  assertStringIncludes(e1!.message, "(1 issue; at the root: not 8)");
  const z3r = z3.object({ id: z3.string() }).refine(async (u) =>
    await Promise.resolve(u.id === "7")
  );
  const [d2, e2] = await grab("GET /user", { schema: z3r });
  same<typeof d2, { id: string } | null>(true);
  assertEquals(e2, null);
  assertEquals(d2, { id: "7" });
  const va = v.pipeAsync(
    v.object({ id: v.string() }),
    v.checkAsync(async (u) => (await Promise.resolve(u.id)) === "8", "not 8"),
  );
  const [d3, e3] = await grab("GET /user", { schema: va });
  same<typeof d3, { id: string } | null>(true);
  assertEquals((e3 as GrabTransportError).kind, "schema");
  assertStringIncludes(e3!.message, "(1 issue; at the root: not 8)");
});

Deno.test("orThrow, text, sse, ndjson, paginate with libraries", async () => {
  await using server = startServer({
    "/user": () => json(USER),
    "/text": () => new Response("hello"),
    "/sse": () =>
      new Response('data: {"n":"1"}\n\ndata: {"n":"2"}\n\ndata: {"n":3}\n\n', {
        headers: { "content-type": "text/event-stream" },
      }),
    "/nd": () =>
      new Response('{"n":"1"}\n{"n":"2"}\n', {
        headers: { "content-type": "application/x-ndjson" },
      }),
    "/pages/:n": (req) => {
      const n = Number(new URL(req.url).pathname.split("/").pop());
      const headers: Record<string, string> = {};
      if (n < 2) headers.link = `</pages/${n + 1}>; rel="next"`;
      return json({ id: String(n) }, { headers });
    },
  });
  const grab = createGrab(server.url);
  const [u] = await orThrow(grab("GET /user", {
    schema: v.object({ id: v.pipe(v.string(), v.transform(Number)) }),
  }));
  same<typeof u, { id: number }>(true);
  assertEquals(u, { id: 7 });

  const [t] = await grab("GET /text", {
    responseType: "text",
    schema: z.string().transform((s) => s.length),
  });
  same<typeof t, number | null>(true);
  assertEquals(t, 5);

  const [events] = await grab("GET /sse", {
    responseType: "sse",
    schema: z.object({ n: z.string().transform(Number) }),
  });
  same<typeof events, GrabStream<ServerSentEvent<{ n: number }>> | null>(
    true,
  );
  const got: number[] = [];
  for await (const event of events!) got.push(event.data.n);
  assertEquals(got, [1, 2]);
  assertEquals(events!.error?.kind, "schema");
  assertStringIncludes(events!.error!.message, "(1 issue; at /n: ");

  const [rows] = await grab("GET /nd", {
    responseType: "ndjson",
    schema: type({ n: type("string").pipe((s) => Number(s)) }),
  });
  same<typeof rows, GrabStream<{ n: number }> | null>(true);
  const ns: number[] = [];
  for await (const row of rows!) ns.push(row.n);
  assertEquals(ns, [1, 2]);
  assertEquals(rows!.error, null);

  const ids: number[] = [];
  for await (
    const [page] of paginate(grab, "GET /pages/0", {
      schema: z3.object({ id: z3.string().transform(Number) }),
    })
  ) {
    same<typeof page, { id: number }>(true);
    ids.push(page.id);
  }
  assertEquals(ids, [0, 1, 2]);
});

Deno.test("a key of the body that is a URL shows no query in the message", async () => {
  // A map keyed by URL (images, webhooks): each library's issue path holds
  // the key, query and all.
  const key = "https://cdn.example/a.png?token=SECRET";
  await using server = startServer({ "/m": () => json({ [key]: "big" }) });
  const grab = createGrab(server.url);
  const schemas = [
    z.record(z.string(), z.number()),
    z3.record(z3.string(), z3.number()),
    v.record(v.string(), v.number()),
    type({ "[string]": "number" }),
  ];
  for (const schema of schemas) {
    const [, error] = await grab("GET /m", {
      schema: schema as typeof schemas[0],
    });
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "schema");
    assertStringIncludes(error.message, "https:~1~1cdn.example~1a.png?…");
    assert(!error.message.includes("SECRET"), error.message);
    assert(!String(error).includes("SECRET"));
    assert(!JSON.stringify(error).includes("SECRET"));
    // The issues themselves keep what the schema gave.
    assertEquals(JSON.stringify(error.issues).includes("SECRET"), true);
  }
});

Deno.test("async transforms give their output, typed", async () => {
  await using server = startServer({ "/user": () => json(USER) });
  const grab = createGrab(server.url);
  const [a] = await grab("GET /user", {
    schema: z.object({
      id: z.string().transform(async (s) => BigInt(await Promise.resolve(s))),
    }),
  });
  same<typeof a, { id: bigint } | null>(true);
  assertEquals(a, { id: 7n });
  const [b] = await grab("GET /user", {
    schema: z3.object({
      id: z3.string().transform(async (s) => BigInt(await Promise.resolve(s))),
    }),
  });
  same<typeof b, { id: bigint } | null>(true);
  assertEquals(b, { id: 7n });
  const [c] = await grab("GET /user", {
    schema: v.objectAsync({
      id: v.pipeAsync(
        v.string(),
        v.transformAsync(async (s) => BigInt(await Promise.resolve(s))),
      ),
    }),
  });
  same<typeof c, { id: bigint } | null>(true);
  assertEquals(c, { id: 7n });
  const [d] = await grab("GET /user", {
    schema: type({ id: "string.numeric.parse" }),
  });
  same<typeof d, { id: number } | null>(true);
  // arktype keeps undeclared keys unless told to delete them.
  assertEquals(d?.id, 7);
});

Deno.test("a schema's message leaves out the credentials the request sent", async () => {
  // valibot quotes the value that failed: here the token an echoing server
  // (httpbin's /headers, a token introspection) sent back.
  const token = "sk_live_ABCDEFGH12345";
  const echo = (request: Request) => request.headers.get("authorization");
  await using server = startServer({
    "/me": (request) => json({ id: echo(request) }),
    "/sse": (request) =>
      new Response(`data: ${JSON.stringify({ id: echo(request) })}\n\n`, {
        headers: { "content-type": "text/event-stream" },
      }),
    "/nd": (request) =>
      new Response(`${JSON.stringify({ id: echo(request) })}\n`, {
        headers: { "content-type": "application/x-ndjson" },
      }),
  });
  const grab = createGrab(server.url, {
    headers: { authorization: `Bearer ${token}` },
  });
  const schema = v.object({ id: v.number() });
  const [, error] = await grab("GET /me", { schema });
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "schema");
  assertStringIncludes(error.message, 'but received "…"');
  assert(!error.message.includes(token), error.message);
  // The issues keep what the schema gave.
  assertStringIncludes(JSON.stringify(error.issues), token);
  for (const responseType of ["sse", "ndjson"] as const) {
    const [stream] = await grab(
      responseType === "sse" ? "GET /sse" : "GET /nd",
      { responseType, schema },
    );
    for await (const _ of stream!) throw new Error("no item passes");
    assertEquals(stream!.error?.kind, "schema");
    assertStringIncludes(stream!.error!.message, 'but received "…"');
  }
});
