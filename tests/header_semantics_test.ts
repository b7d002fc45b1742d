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
    new RegExp(`Cannot send header "${name}": the runtime frames`);

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
