import {
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  Call,
  type GrabStream,
  GrabTransportError,
} from "../mod.ts";
import { startServer } from "./_server.ts";
import { bytewise, paced, type Tap, tap } from "./_streams.ts";

const NDJSON = { "content-type": "application/x-ndjson" };
const ROWS = '{"row_id":1}\r\n\n  \n{"row_id":2,"name":"é"}\n{"row_id":3}';

function server() {
  return startServer({
    "/rows": () => new Response(paced([ROWS]), { headers: NDJSON }),
    "/rows-bytewise": () =>
      new Response(paced(bytewise(ROWS)), { headers: NDJSON }),
    "/bad-line": () =>
      new Response(paced(['{"a":1}\n', "{oops}\n", '{"a":3}\n']), {
        headers: NDJSON,
      }),
    "/long-line": () =>
      new Response(paced(['{"a":1}\n', `{"a":"${"x".repeat(500)}"}\n`]), {
        headers: NDJSON,
      }),
  });
}

Deno.test("responseType ndjson", async (t) => {
  await using fixture = server();
  const grab = createGrab(fixture.url);

  await t.step(
    "one value per line that is not blank; LF, CRLF, a last line without an end",
    async () => {
      for (const path of ["/rows", "/rows-bytewise"] as const) {
        const [rows, error] = await grab<{ row_id: number }>(`GET ${path}`, {
          responseType: "ndjson",
        });
        assertEquals(error, null);
        const ids: number[] = [];
        for await (const row of rows!) ids.push(row.row_id);
        assertEquals(ids, [1, 2, 3]);
        assertEquals(rows!.error, null);
        assertEquals(rows!.lastEventId, "");
      }
    },
  );

  await t.step("keys follow casing, as in JSON", async () => {
    const [rows] = await grab<{ rowId: number }>("GET /rows", {
      responseType: "ndjson",
      casing: "camelCase",
    });
    const ids: number[] = [];
    for await (const row of rows!) ids.push(row.rowId);
    assertEquals(ids, [1, 2, 3]);
  });

  await t.step(
    "a line that is not JSON ends the stream: kind parse",
    async () => {
      const [rows] = await grab("GET /bad-line", { responseType: "ndjson" });
      const seen: unknown[] = [];
      for await (const row of rows!) seen.push(row);
      assertEquals(seen, [{ a: 1 }]);
      assertInstanceOf(rows!.error, GrabTransportError);
      assertEquals(rows!.error.kind, "parse");
    },
  );

  await t.step(
    "a line over maxBodyBytes: kind too-large, the lines before kept",
    async () => {
      const [rows] = await grab("GET /long-line", {
        responseType: "ndjson",
        maxBodyBytes: 100,
      });
      const seen: unknown[] = [];
      for await (const row of rows!) seen.push(row);
      assertEquals(seen, [{ a: 1 }]);
      assertEquals(rows!.error?.kind, "too-large");
      assertStringIncludes(
        rows!.error!.message,
        "Cannot read the response: one line is over maxBodyBytes (100 bytes); raise maxBodyBytes: GET ",
      );
    },
  );

  await t.step("a schema checks and types each value", async () => {
    const schema = {
      "~standard": {
        version: 1 as const,
        vendor: "test",
        validate: (value: unknown) => {
          const id = (value as { row_id?: unknown }).row_id;
          return id === 3
            ? { issues: [{ message: "three is not allowed" }] }
            : { value: { id: id as number } };
        },
      },
    };
    const [rows] = await grab("GET /rows", { responseType: "ndjson", schema });
    const ids: number[] = [];
    for await (const row of rows!) ids.push(row.id);
    assertEquals(ids, [1, 2]);
    assertEquals(rows!.error?.kind, "schema");
  });

  await t.step(
    "a validator that throws is the caller's error, thrown by the loop",
    async () => {
      const oops = new Error("validator bug");
      const schema = {
        "~standard": {
          version: 1 as const,
          vendor: "test",
          validate: (): never => {
            throw oops;
          },
        },
      };
      const [rows] = await grab("GET /rows", {
        responseType: "ndjson",
        schema,
      });
      const error = await assertRejects(async () => {
        for await (const _ of rows!) { /* the first value throws */ }
      });
      assertStrictEquals(error, oops);
    },
  );

  await t.step("Call.send opens the same stream, values parsed", async () => {
    const outcome = await new Call("GET /rows", fixture.url).send({
      responseType: "ndjson",
    });
    if (!outcome.ok) throw outcome.error;
    assertEquals(outcome.status, 200);
    const rows = outcome.body as GrabStream<unknown>;
    const seen: unknown[] = [];
    for await (const value of rows) seen.push(value);
    assertEquals(seen.length, 3);
  });
});

Deno.test("GrabStream serves no item read before the caller's signal or attemptTimeout ended the body", async (t) => {
  const lines = Array.from({ length: 200 }, (_, i) => `{"i":${i}}\n`).join("");
  const events = Array.from({ length: 200 }, (_, i) => `data: ${i}\n\n`)
    .join("");
  const taps: Tap[] = [];
  // Many items in one chunk, then the connection stays open.
  const openAfter = (text: string, type: string) => {
    const body = tap();
    taps.push(body);
    body.write(text);
    return new Response(body.body, { headers: { "content-type": type } });
  };
  await using fixture = startServer({
    "/rows": () => openAfter(lines, NDJSON["content-type"]),
    "/events": () => openAfter(events, "text/event-stream"),
  });
  const grab = createGrab(fixture.url, { retry: 0 });

  await t.step(
    "the signal aborts after the first row: kind abort",
    async () => {
      const controller = new AbortController();
      const [rows] = await grab("GET /rows", {
        responseType: "ndjson",
        signal: controller.signal,
      });
      let after = 0;
      let first = true;
      for await (const _ of rows!) {
        if (first) controller.abort();
        else after++;
        first = false;
      }
      assertEquals(after, 0);
      assertEquals(rows!.error?.kind, "abort");
    },
  );

  await t.step("attemptTimeout passes after the first event", async () => {
    // The limit is to pass while the caller holds the first event: a machine
    // so busy that the head or that event came later is asked again, a few
    // times at most.
    let events = null;
    let count = 0;
    for (let tries = 0; tries < 5 && count === 0; tries++) {
      [events] = await grab("GET /events", {
        responseType: "sse",
        attemptTimeout: 20,
      });
      for await (const _ of events ?? []) {
        // Held past the attempt's time: the next step is its end.
        if (count++ === 0) await new Promise((r) => setTimeout(r, 60));
      }
    }
    assertEquals(count, 1);
    assertEquals(events!.error?.kind, "timeout");
    assertStringIncludes(
      events!.error!.message,
      "the attemptTimeout (20 ms) passed",
    );
  });

  await Promise.all(taps.map((body) => body.cancelled));
});
