import {
  assertEquals,
  assertMatch,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabValidationError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

/** The request headers the server saw, as a record. */
type Seen = Record<string, string>;

Deno.test("a header that says how the connection carries the message is refused before any request, on every runtime", async (t) => {
  await using server = startServer((_request, seen) =>
    json(Object.fromEntries(seen.headers))
  );
  // Node's fetch throws for each, which was retried as a network failure;
  // Deno's sent it as given.
  const framing: [string, string][] = [
    ["Transfer-Encoding", "chunked"],
    ["transfer-encoding", "gzip"],
    ["Keep-Alive", "timeout=5"],
    ["Upgrade", "websocket"],
    ["Expect", "100-continue"],
    ["Connection", "upgrade"],
    ["connection", "keep-alive, x-hop"],
  ];
  const refused = (name: string) =>
    new RegExp(`Cannot send header "${name}": the runtime manages`);

  await t.step("the call's", async () => {
    const grab = createGrab(server.url, { retry: 2 });
    for (const [name, value] of framing) {
      const error = await assertRejects(
        () => grab("POST /x", { body: "x", headers: [[name, value]] }),
        GrabValidationError,
      );
      assertMatch(error.message, refused(name));
    }
  });

  await t.step("the factory's, static or from its function", async () => {
    for (const [name, value] of framing) {
      let thrown: unknown;
      try {
        createGrab(server.url, { headers: { [name]: value } });
      } catch (error) {
        thrown = error;
      }
      if (!(thrown instanceof GrabValidationError)) throw thrown;
      assertMatch(thrown.message, refused(name));
      const grab = createGrab(server.url, { headers: () => [[name, value]] });
      const error = await assertRejects(
        () => grab("GET /x"),
        GrabValidationError,
      );
      assertMatch(error.message, refused(name));
    }
  });
  assertStrictEquals(server.requests.length, 0);

  await t.step("Connection close and keep-alive are sent", async () => {
    const grab = createGrab(server.url, { retry: 0 });
    for (const value of ["close", " Keep-Alive\t"]) {
      const [sent, error] = await grab<Seen>("GET /x", {
        headers: { Connection: value },
      });
      assertStrictEquals(error, null);
      assertEquals(sent?.["connection"], value.trim());
    }
  });
});

Deno.test("an sse grab reads a Content-Type given twice as EventSource does: the last media type counts", async (t) => {
  await using server = startServer((request) => {
    const headers = new Headers();
    const types = new URL(request.url).searchParams.getAll("type");
    for (const type of types) headers.append("content-type", type);
    return new Response("data: hi\n\n", { headers });
  });
  const grab = createGrab(server.url, { retry: 0, responseType: "sse" });
  const read = async (types: string[]) => {
    const query = new URLSearchParams(types.map((type) => ["type", type]));
    const [events, error] = await grab(`GET /events?${query}`);
    if (error !== null) return "kind" in error ? error.kind : error.statusCode;
    const data: string[] = [];
    for await (const event of events!) data.push(event.data);
    return data.join();
  };

  await t.step("the same type twice, as a proxy adds it again", async () => {
    assertEquals(await read(["text/event-stream", "text/event-stream"]), "hi");
    assertEquals(
      await read(["text/event-stream", "Text/Event-Stream; charset=utf-8"]),
      "hi",
    );
  });

  await t.step("another type before it, or none at all", async () => {
    assertEquals(await read(["text/html", "text/event-stream"]), "hi");
    assertEquals(await read(["text/event-stream", "*/*"]), "hi");
  });

  await t.step("another type last is refused, as before", async () => {
    assertEquals(await read(["text/event-stream", "text/html"]), "parse");
    // A comma inside a quoted parameter splits nothing.
    assertEquals(
      await read(['text/html; x="a,text/event-stream"']),
      "parse",
    );
  });
});
