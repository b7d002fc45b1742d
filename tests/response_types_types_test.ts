// Compile-time contract of `responseType`: checked by `deno check` (the
// `check` task and the test run's type check). Each `@ts-expect-error` fails
// the check when the line below it compiles. The one run-time test proves
// the checked function is a real grab call path.
import { assertEquals } from "@std/assert";
import createGrab, {
  Call,
  type GrabOptions,
  type GrabStream,
  orThrow,
  paginate,
  type ServerSentEvent,
} from "../mod.ts";
import { startServer } from "./_server.ts";
import { type Row, rowSchema as schema, same } from "./_types.ts";

async function compileOnly(base: string): Promise<void> {
  const grab = createGrab(base);
  const [json] = await grab<Row>("GET /x");
  same<typeof json, Row | null>(true);
  const [text] = await grab("GET /x", { responseType: "text" });
  same<typeof text, string | null>(true);
  const [bytes] = await grab("GET /x", { responseType: "bytes" });
  same<typeof bytes, Uint8Array | null>(true);
  const [blob] = await grab("GET /x", { responseType: "blob" });
  same<typeof blob, Blob | null>(true);
  const [stream] = await grab("GET /x", { responseType: "stream" });
  same<typeof stream, ReadableStream<Uint8Array> | null>(true);
  const [events] = await grab("GET /x", { responseType: "sse" });
  same<typeof events, GrabStream<ServerSentEvent> | null>(true);
  const [rows] = await grab<Row>("GET /x", { responseType: "ndjson" });
  same<typeof rows, GrabStream<Row> | null>(true);

  // A schema types the value, each event's data, each line, and the text.
  const [checked] = await grab("GET /x", { schema });
  same<typeof checked, Row | null>(true);
  const [checkedEvents] = await grab("GET /x", { responseType: "sse", schema });
  same<typeof checkedEvents, GrabStream<ServerSentEvent<Row>> | null>(true);
  const [checkedRows] = await grab("GET /x", {
    responseType: "ndjson",
    schema,
  });
  same<typeof checkedRows, GrabStream<Row> | null>(true);
  const [checkedText] = await grab("GET /x", { responseType: "text", schema });
  same<typeof checkedText, Row | null>(true);
  // The output is what the schema's `types` declare (Standard Schema's
  // InferOutput), even when its `validate` is typed more loosely.
  const declared = {
    "~standard": {
      version: 1 as const,
      vendor: "types",
      validate: (value: unknown): { value: unknown } => ({ value }),
      types: undefined as unknown as { input: string; output: Row },
    },
  };
  const [declaredRow] = await grab("GET /x", { schema: declared });
  same<typeof declaredRow, Row | null>(true);
  for await (const [page] of paginate(grab, "GET /x", { schema: declared })) {
    same<typeof page, Row>(true);
  }
  // `types` given as `undefined` declares nothing: `validate` says.
  const undeclared = {
    "~standard": {
      version: 1 as const,
      vendor: "types",
      validate: (value: unknown): { value: Row } => ({ value: value as Row }),
      types: undefined,
    },
  };
  const [undeclaredRow] = await grab("GET /x", { schema: undeclared });
  same<typeof undeclaredRow, Row | null>(true);
  // Bytes, blobs and raw streams are never checked: a schema is refused.
  // @ts-expect-error: no schema with bytes
  await grab("GET /x", { responseType: "bytes", schema });
  // @ts-expect-error: no schema with a raw stream
  await grab("GET /x", { responseType: "stream", schema });
  const bytesFactory = createGrab(base, { responseType: "bytes" });
  // @ts-expect-error: no schema where the factory reads bytes
  await bytesFactory("GET /x", { schema });

  // The factory's default types every call that does not give its own.
  const texts = createGrab(base, { responseType: "text" });
  const [fromFactory] = await texts("GET /x");
  same<typeof fromFactory, string | null>(true);
  const [overridden] = await texts<Row>("GET /x", { responseType: "json" });
  same<typeof overridden, Row | null>(true);

  // Explicit type arguments (the body's type) keep the response type.
  const [posted] = await grab<unknown, { name: string }>("POST /x", {
    body: { name: "a" },
    responseType: "text",
  });
  same<typeof posted, string | null>(true);
  const [raw] = await grab<unknown, { n: number }>("POST /x", {
    body: { n: 1 },
    responseType: "sse",
  });
  same<typeof raw, GrabStream<ServerSentEvent> | null>(true);

  // A responseType that may be `undefined` (forwarded under
  // exactOptionalPropertyTypes) may also read the factory's type.
  const maybeBytes = Math.random() > 2 ? "bytes" as const : undefined;
  const [forwarded] = await texts("GET /x", { responseType: maybeBytes });
  same<typeof forwarded, string | Uint8Array | null>(true);
  const [none] = await texts("GET /x", { responseType: undefined });
  same<typeof none, string | null>(true);
  const [anyJson] = await grab("GET /x", { responseType: maybeBytes });
  same<typeof anyJson, unknown>(true);
  const maybeSse = Math.random() > 2 ? "sse" as const : undefined;
  const [either, eitherError] = await grab("GET /x", {
    responseType: maybeSse,
    schema,
  });
  if (!eitherError) {
    same<typeof either, Row | GrabStream<ServerSentEvent<Row>> | null>(true);
  }
  // @ts-expect-error: no schema where the factory reads bytes
  await bytesFactory("GET /x", { schema, responseType: undefined });
  for await (
    const [page] of paginate(texts, "GET /pages", { responseType: maybeBytes })
  ) {
    same<typeof page, string | Uint8Array | null>(true);
  }
  const sent = await new Call("GET /x", base).send({ responseType: maybeSse });
  if (sent.ok) same<typeof sent.body, unknown>(true);

  // Path parameters are still required with a response type.
  // @ts-expect-error: params missing for :id
  await grab("GET /users/:id", { responseType: "ndjson" });
  // @ts-expect-error: not a response type
  await grab("GET /x", { responseType: "xml" });

  // orThrow, paginate and Call.send carry the type.
  const [thrown] = await orThrow(grab("GET /x", { responseType: "bytes" }));
  same<typeof thrown, Uint8Array | null>(true);
  for await (const [page] of paginate(texts, "GET /pages")) {
    same<typeof page, string | null>(true);
  }
  // An explicit data type is the caller's word, as for JSON.
  for await (const [page] of paginate<string>(texts, "GET /pages")) {
    same<typeof page, string>(true);
  }
  const outcome = await new Call("GET /x", base).send({ responseType: "sse" });
  if (outcome.ok && outcome.status < 300) {
    const events = outcome.body as GrabStream<ServerSentEvent> | null;
    void events;
  }
  // A response outside 2xx is an outcome too, its body the error's JSON or
  // text whatever the response type: the type admits it.
  const missing = await new Call("GET /x", base).send({
    responseType: "bytes",
  });
  if (missing.ok) {
    // @ts-expect-error: a 404's body is its JSON or text, not bytes
    const bytes: Uint8Array | null = missing.body;
    void bytes;
  }

  // A success without a body (204, 205, HEAD) has null data: every type
  // but JSON's keeps null after the error check; a JSON type is the
  // caller's word, and a schema checks the null itself.
  const [okText, textError] = await grab("GET /x", { responseType: "text" });
  if (!textError) same<typeof okText, string | null>(true);
  const [okEvents, eventsError] = await grab("GET /x", { responseType: "sse" });
  if (!eventsError) {
    same<typeof okEvents, GrabStream<ServerSentEvent> | null>(
      true,
    );
  }
  const [okRows, rowsError] = await grab("GET /x", {
    responseType: "ndjson",
    schema,
  });
  if (!rowsError) same<typeof okRows, GrabStream<Row> | null>(true);
  const [okJson, jsonError] = await grab<Row>("GET /x");
  if (!jsonError) same<typeof okJson, Row>(true);
  const [okChecked, checkedError] = await grab("GET /x", { schema });
  if (!checkedError) same<typeof okChecked, Row>(true);
}

Deno.test("types: the data of each responseType, on a real grab", async () => {
  await using server = startServer({
    "/x": () => new Response("plain"),
  });
  void compileOnly;
  const [text] = await createGrab(server.url)("GET /x", {
    responseType: "text",
  });
  assertEquals(text, "plain");
});

Deno.test("types: a responseType given as undefined reads the factory's", async () => {
  await using server = startServer({
    "/x": () => Response.json({ id: 1 }),
  });
  const read = (responseType?: "bytes") =>
    createGrab(server.url, { retry: 0 })("GET /x", { responseType });
  const [data, error] = await read();
  if (error) throw error;
  // Typed as any JSON value (`unknown`), not as the bytes it is not.
  same<typeof data, unknown>(true);
  assertEquals(data, { id: 1 });
});

Deno.test("types: Call.send's body outside 2xx is not the response type's", async () => {
  await using server = startServer({
    "/x": () => Response.json({ code: "gone" }, { status: 404 }),
  });
  const outcome = await new Call("GET /x", server.url).send({
    responseType: "bytes",
    retry: 0,
  });
  if (!outcome.ok) throw outcome.error;
  assertEquals(outcome.status, 404);
  assertEquals(outcome.body, { code: "gone" });
});

// A factory built from options typed as `GrabOptions` keeps JSON data.
async function fromVariable(options: GrabOptions): Promise<void> {
  const grab = createGrab("https://api.example.com", options);
  const [user] = await grab<Row>("GET /me");
  same<typeof user, Row | null>(true);
}
void fromVariable;

// Options typed with an optional literal responseType keep it.
async function optionalLiteral(
  options: GrabOptions & { responseType?: "text" },
): Promise<void> {
  const grab = createGrab("https://api.example.com", options);
  const [text] = await grab("GET /readme");
  same<typeof text, string | null>(true);
}
void optionalLiteral;
