/**
 * Promises of the parsers (event streams, NDJSON, Link headers, pagination,
 * JSON:API) that a one-token change in their code broke without any other
 * test noticing; each step holds one.
 *
 * @module
 */

import { assertEquals, assertRejects, assertThrows } from "@std/assert";
import createGrab, { GrabValidationError, paginate } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { tapped, tapServer } from "./_streams.ts";

Deno.test("responseType sse: the cap on one event", async (t) => {
  await using server = tapServer("text/event-stream");
  const grab = createGrab(server.url);

  await t.step(
    "a line carried over from the last chunk counts toward its own event only",
    async () => {
      // After "id: 1\n" (6 bytes) ends a chunk, "data: a\n" ends its event
      // (14 bytes); the next event is 20 bytes, exactly the cap.
      const [events] = await grab("GET /", {
        responseType: "sse",
        maxBodyBytes: 20,
      });
      const live = await tapped(server.taps, 1);
      live.write("data: first\n\nid: 1\n");
      const seen: string[] = [];
      for await (const { data } of events!) {
        seen.push(data);
        if (data === "first") {
          live.write(`data: a\n\ndata: ${"x".repeat(13)}\n\n`);
          live.close();
        }
      }
      assertEquals(seen, ["first", "a", "x".repeat(13)]);
      assertEquals(events!.error, null);
    },
  );
});

Deno.test("responseType sse: fields", async (t) => {
  await using server = tapServer("text/event-stream");
  const grab = createGrab(server.url);

  await t.step(
    "a field one letter off data is unknown: skipped, its event not dispatched",
    async () => {
      const [events] = await grab("GET /", { responseType: "sse" });
      const live = await tapped(server.taps, 1);
      live.write(
        "eata: e\n\ndbta: b\n\ndaua: u\n\ndatb: b\n\ndata: kept\n\n",
      );
      live.close();
      const seen: string[] = [];
      for await (const { data } of events!) seen.push(data);
      assertEquals(seen, ["kept"]);
      assertEquals(events!.error, null);
    },
  );
});

Deno.test("paginate: Link headers", async (t) => {
  // Page 1 links to itself with an empty target, then on to page 2.
  await using server = startServer((request) => {
    const page = new URL(request.url).searchParams.get("page") ?? "1";
    const link = '<>; rel="self", <?page=2>; rel="next"';
    return json([Number(page)], page === "1" ? { headers: { link } } : {});
  });
  const grab = createGrab(server.url);

  await t.step(
    "an empty target is a link too: the next one still read",
    async () => {
      const pages: unknown[] = [];
      for await (const [data] of paginate(grab, "GET /items", { limit: 5 })) {
        pages.push(data);
      }
      assertEquals(pages, [[1], [2]]);
      assertEquals(server.requests.at(-1)?.url.pathname, "/items");
      assertEquals(server.requests.at(-1)?.url.search, "?page=2");
    },
  );
});

Deno.test("createGrab(): options that are not an object", async (t) => {
  await using server = startServer(() => json({}));

  await t.step(
    "an array: no hint about a body, which a factory has not",
    () => {
      assertThrows(
        () => createGrab(server.url, [] as never),
        GrabValidationError,
        "Cannot create the grab: 1 problem in the options (Cannot use the options: they must be an object such as { timeout: 10_000 }, not an array)",
      );
    },
  );
});

Deno.test("casing: two keys that both change into one", async (t) => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { casing: "camelCase" });

  await t.step("are refused, neither sent in silence", async () => {
    await assertRejects(
      () =>
        grab("POST /people", {
          body: { clashingPartName: 1, ClashingPartName: 2 },
        }),
      GrabValidationError,
      'Cannot send keys "clashingPartName" and "ClashingPartName": both become "clashing_part_name" in snake_case',
    );
    assertEquals(server.requests.length, 0);
  });
});

Deno.test("responseType ndjson: the cap on one line", async (t) => {
  await using server = tapServer("application/x-ndjson");
  const grab = createGrab(server.url);
  const encoder = new TextEncoder();
  // "\u1000" is E1 80 80 in UTF-8; the first chunk ends after E1 80.
  const line = encoder.encode(`"\u1000${"x".repeat(10)}"`);
  const bytes = line.byteLength; // 15

  await t.step(
    "a character split across chunks after a 0x80 byte counts all its bytes",
    async () => {
      for (
        const [maxBodyBytes, kind] of [[bytes - 1, "too-large"], [bytes, null]]
      ) {
        const count = server.taps.length + 1;
        const [rows] = await grab("GET /", {
          responseType: "ndjson",
          maxBodyBytes: maxBodyBytes as number,
        });
        const live = await tapped(server.taps, count);
        live.write(
          new Uint8Array([...encoder.encode("1\n"), ...line.subarray(0, 3)]),
        );
        const seen: unknown[] = [];
        for await (const row of rows!) {
          seen.push(row);
          if (row === 1) {
            // The first line was read: the rest comes as another chunk.
            live.write(new Uint8Array([...line.subarray(3), 10]));
            live.close();
          }
        }
        assertEquals(rows!.error?.kind ?? null, kind, `${maxBodyBytes}`);
        assertEquals(seen.length, kind === null ? 2 : 1, `${maxBodyBytes}`);
      }
    },
  );
});
