/**
 * Differential property tests against real servers on 127.0.0.1: what grab
 * reads from a body split into random chunks, and what a server sees of a
 * path parameter or which next link paginate follows, compared with small
 * reference implementations written from the specifications (not from
 * grab's code). Seeded, with a fixed run count.
 *
 * Reference choices:
 * - SSE: the HTML standard, 9.2.6 "Interpreting an event stream", applied
 *   to the whole body decoded at once (UTF-8 decode, one leading BOM
 *   removed); `retry` on an event is the latest valid `retry:` before it
 *   (the contract's "retry hint"); an empty `retry:` value is not generated,
 *   as the standard's "only ASCII digits" leaves it open.
 * - NDJSON: the body split on LF, a CR before it removed, lines of only
 *   spaces and tabs skipped, each other line `JSON.parse`d; the first line
 *   that does not parse ends the stream with kind "parse" (the README).
 * - Path parameters: the server must see one segment whose
 *   `decodeURIComponent` is the value, unless the value is empty, `.` or
 *   `..` before or after percent-decoding (CONTRACT, "Paths stay where they
 *   were written"), which is a `GrabValidationError`.
 * - Link: RFC 8288 section 3 with the first `rel` parameter of a link
 *   counting, relation types compared case-insensitively, the first link of
 *   relation "next" followed, resolved against the page's URL (RFC 3986).
 *
 * @module
 */

import { assert, assertEquals, assertRejects } from "@std/assert";
import { fc } from "./_npm.ts";
import { referenceSse } from "./_sse_reference.ts";
import { chunkServer, split } from "./_chunk_server.ts";
import createGrab, {
  GrabValidationError,
  paginate,
  type ServerSentEvent,
} from "../mod.ts";

const RUNS = Number(Deno.env.get("GRAB_FUZZ_SPLIT_RUNS") ?? 150);
const SEED = Number(Deno.env.get("GRAB_FUZZ_SPLIT_SEED") ?? 20_261_124);
const PARAMETERS = { seed: SEED, numRuns: RUNS, endOnFailure: true };

// ---------------------------------------------------------------- SSE

/** Decodes a body with its BOM kept, for the reference to remove. */
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

// Values without line ends: ASCII, multi-byte characters, NUL, colons, spaces.
const valueArb = fc.array(
  fc.oneof(
    fc.constantFrom(
      " ",
      "  ",
      ":",
      "\0",
      "é",
      "€",
      "😀",
      "日本",
      "\uFEFF",
      "a",
    ),
    fc.string({ maxLength: 4 }).map((s) => s.replace(/[\r\n]/g, "")),
    fc.string({ maxLength: 3, unit: "grapheme" }).map((s) =>
      s.replace(/[\r\n]/g, "")
    ),
  ),
  { maxLength: 5 },
).map((parts) => parts.join(""));

const sep = fc.constantFrom(":", ": ", ":  ");
const lineArb = fc.oneof(
  fc.tuple(sep, valueArb).map(([s, v]) => `data${s}${v}`),
  fc.constant("data"),
  fc.tuple(sep, valueArb).map(([s, v]) => `event${s}${v}`),
  fc.constant("event"),
  fc.tuple(sep, valueArb).map(([s, v]) => `id${s}${v}`),
  fc.constant("id"),
  fc.tuple(sep, fc.nat(99_999)).map(([s, v]) => `retry${s}${v}`),
  fc.tuple(sep, valueArb).map(([s, v]) => `retry${s}x${v}`),
  valueArb.map((v) => `:${v}`),
  fc.tuple(
    fc.constantFrom("dat", "datas", "Data", "ids", "foo", "eventx", " data"),
    sep,
    valueArb,
  ).map(([n, s, v]) => `${n}${s}${v}`),
  valueArb,
  fc.constant(""),
  fc.constant(""),
);
const endArb = fc.constantFrom("\n", "\r", "\r\n");
const sseArb = fc.record({
  bom: fc.boolean(),
  lines: fc.array(fc.tuple(lineArb, endArb), { maxLength: 24 }),
  tail: fc.oneof(fc.constant(""), lineArb),
  cuts: fc.array(fc.nat(2_000), { maxLength: 12 }),
});

Deno.test("an SSE body split anywhere gives the standard's events", async () => {
  let body: Uint8Array[] = [];
  await using server = chunkServer("text/event-stream", () => body);
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  await fc.assert(
    fc.asyncProperty(sseArb, async ({ bom, lines, tail, cuts }) => {
      const text = (bom ? "\uFEFF" : "") +
        lines.map(([line, end]) => line + end).join("") + tail;
      const bytes = new TextEncoder().encode(text);
      body = split(bytes, cuts);
      const expected = referenceSse(UTF8.decode(bytes));
      const [events, error] = await grab("GET /sse", { responseType: "sse" });
      assertEquals(error, null);
      assert(events !== null);
      const got: ServerSentEvent[] = [];
      for await (const event of events) got.push({ ...event });
      assertEquals(events.error, null);
      assertEquals(got, expected.events, JSON.stringify(text));
      assertEquals(events.lastEventId, expected.lastEventId);
    }),
    PARAMETERS,
  );
});

// ---------------------------------------------------------------- NDJSON

interface NdReference {
  values: unknown[];
  parseError: boolean;
}

function referenceNdjson(bytes: Uint8Array): NdReference {
  const text = new TextDecoder().decode(bytes);
  const values: unknown[] = [];
  for (let line of text.split("\n")) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (/^[ \t]*$/.test(line)) continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      return { values, parseError: true };
    }
  }
  return { values, parseError: false };
}

const ndLineArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.jsonValue({ maxDepth: 2, stringUnit: "grapheme" }).map((v) =>
      JSON.stringify(v)
    ),
  },
  {
    weight: 2,
    arbitrary: fc.jsonValue({ maxDepth: 2, stringUnit: "grapheme" }).map((v) =>
      " \t" + JSON.stringify(v, null, 0) + " "
    ),
  },
  { weight: 2, arbitrary: fc.constantFrom("", " ", "\t", " \t ") },
  { weight: 1, arbitrary: fc.constantFrom("{", "nope", "[1,]", "'x'", "1 2") },
);
const ndArb = fc.record({
  lines: fc.array(fc.tuple(ndLineArb, fc.constantFrom("\n", "\r\n")), {
    maxLength: 16,
  }),
  tail: fc.oneof(fc.constant(""), ndLineArb),
  cuts: fc.array(fc.nat(2_000), { maxLength: 12 }),
});

Deno.test("an NDJSON body split anywhere gives its lines' values", async () => {
  let body: Uint8Array[] = [];
  await using server = chunkServer("application/x-ndjson", () => body);
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  await fc.assert(
    fc.asyncProperty(ndArb, async ({ lines, tail, cuts }) => {
      const text = lines.map(([line, end]) => line + end).join("") + tail;
      const bytes = new TextEncoder().encode(text);
      body = split(bytes, cuts);
      const expected = referenceNdjson(bytes);
      const [values, error] = await grab("GET /nd", {
        responseType: "ndjson",
      });
      assertEquals(error, null);
      assert(values !== null);
      const got: unknown[] = [];
      for await (const value of values) got.push(value);
      assertEquals(got, expected.values, JSON.stringify(text));
      assertEquals(
        values.error?.kind ?? null,
        expected.parseError ? "parse" : null,
      );
    }),
    PARAMETERS,
  );
});

// ---------------------------------------------------------------- params

const paramArb = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ maxLength: 4, unit: "grapheme" }),
  fc.constantFrom(
    "",
    ".",
    "..",
    "%2e",
    "%2E%2e",
    ".%2e",
    "%2F",
    "a/b",
    "?x=1",
    "#f",
    "%",
    "%zz",
    "100%",
    "é 😀",
    "...",
    ". ",
    "[]@!$&'()*+,;=",
    "%252e",
  ),
  fc.array(fc.constantFrom(".", "%", "2", "e", "E", "/", "f", "F", "a"), {
    maxLength: 5,
  }).map((parts) => parts.join("")),
);

function decodesTo(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

Deno.test("a path parameter is one segment that decodes to its value", async () => {
  let seen = "";
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      // The raw path as sent: `new URL` keeps percent escapes as they are.
      seen = new URL(request.url).pathname;
      return new Response(null, { status: 204 });
    },
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  await fc.assert(
    fc.asyncProperty(paramArb, async (value) => {
      const decoded = decodesTo(value);
      const refused = value === "" || value === "." || value === ".." ||
        decoded === "" || decoded === "." || decoded === "..";
      // grab also refuses a value with a "." or ".." part between slashes
      // or backslashes (a server may decode "%2F" before it resolves dot
      // segments): such a value may be refused, never sent elsewhere.
      const dotted = [value, decoded ?? ""].some((text) =>
        text.split(/[/\\]/).some((part) => part === "." || part === "..")
      );
      seen = "";
      const call = grab("GET /a/:id/z", { params: { id: value } });
      if (refused) {
        await assertRejects(() => call, GrabValidationError);
        return;
      }
      if (dotted) {
        try {
          await call;
        } catch (error) {
          assert(error instanceof GrabValidationError);
          return;
        }
      }
      const [, error] = await call;
      assertEquals(error, null);
      const segments = seen.split("/");
      assertEquals(segments.length, 4, seen);
      assertEquals(segments[1], "a");
      assertEquals(segments[3], "z");
      assertEquals(decodeURIComponent(segments[2]!), value);
    }),
    PARAMETERS,
  );
});

// ---------------------------------------------------------------- Link

const token = fc.constantFrom("next", "NEXT", "Next", "prev", "last", "first");
const relValueArb = fc.array(token, { minLength: 1, maxLength: 3 });
const quotedArb = fc.array(
  fc.constantFrom("a", ",", ";", "<", ">", " ", "=", '\\"', "\\\\", "x"),
  { maxLength: 6 },
).map((parts) => `"${parts.join("")}"`);
const otherParamArb = fc.tuple(
  fc.constantFrom("title", "type", "hreflang", "media", "x-y"),
  fc.oneof(quotedArb, fc.constantFrom("a", "text/html", "en")),
).map(([name, value]) => `; ${name}=${value}`);
const linkArb = fc.record({
  page: fc.nat(50),
  form: fc.constantFrom("relative", "query", "absolute", "dot"),
  rel: fc.option(relValueArb, { nil: undefined }),
  quoted: fc.boolean(),
  before: fc.array(otherParamArb, { maxLength: 2 }),
  after: fc.array(otherParamArb, { maxLength: 2 }),
  secondRel: fc.option(relValueArb, { nil: undefined }),
  // RFC 8288: parameter names are case-insensitive, white space may stand
  // around ";" and "=", and relation types are separated by spaces.
  name: fc.constantFrom("rel", "REL", "Rel"),
  equals: fc.constantFrom("=", " = ", "\t="),
  semi: fc.constantFrom("; ", ";", " ;\t"),
  gap: fc.constantFrom(" ", "  ", " \t"),
});

Deno.test("paginate follows the first link of relation next", async () => {
  let header = "";
  const pages: string[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      pages.push(url.pathname + url.search);
      const first = url.pathname === "/list/items";
      return new Response("[]", {
        headers: {
          "content-type": "application/json",
          ...(first ? { link: header } : {}),
        },
      });
    },
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const grab = createGrab(origin);
  await fc.assert(
    fc.asyncProperty(
      fc.array(linkArb, { maxLength: 4 }),
      async (links) => {
        const parts: string[] = [];
        let next: string | undefined;
        for (const link of links) {
          const target = {
            relative: `../page/${link.page}`,
            query: `?page=${link.page}`,
            absolute: `${origin}/page/${link.page}`,
            dot: `./p${link.page}`,
          }[link.form];
          let params = link.before.join("");
          if (link.rel !== undefined) {
            const rel = link.rel.join(link.gap);
            params += link.quoted || link.rel.length > 1
              ? `${link.semi}${link.name}${link.equals}"${rel}"`
              : `${link.semi}${link.name}${link.equals}${rel}`;
          }
          if (link.secondRel !== undefined) {
            params += `; rel="${link.secondRel.join(" ")}"`;
          }
          params += link.after.join("");
          parts.push(`<${target}>${params}`);
          if (
            next === undefined &&
            (link.rel ?? link.secondRel)?.some((rel) =>
              rel.toLowerCase() === "next"
            )
          ) {
            next = new URL(target, `${origin}/list/items`).href;
          }
        }
        header = parts.join(", ");
        pages.length = 0;
        for await (const _ of paginate(grab, "GET /list/items", { limit: 2 })) {
          // Only the pages the server saw count.
        }
        const expected = ["/list/items"];
        if (next !== undefined) {
          const url = new URL(next);
          expected.push(url.pathname + url.search);
        }
        assertEquals(pages, expected, header);
      },
    ),
    PARAMETERS,
  );
});

// ---------------------------------------------------------------- bounds

/**
 * The largest event's UTF-8 bytes as the README counts them for "sse"
 * `maxBodyBytes`: every line since the blank line that ended the last event,
 * line ends included, the blank line not; an unended event at the end counts.
 */
function largestEvent(text: string): number {
  const encoder = new TextEncoder();
  let largest = 0;
  let size = 0;
  // A leading BOM is no part of the stream (it is removed as it is decoded).
  const parts = text.replace(/^\uFEFF/, "").split(/(\r\n|\r|\n)/);
  for (let i = 0; i < parts.length; i += 2) {
    const line = parts[i]!;
    const end = parts[i + 1] ?? "";
    if (line === "" && end !== "") {
      size = 0;
      continue;
    }
    size += encoder.encode(line + end).length;
    largest = Math.max(largest, size);
  }
  return largest;
}

Deno.test("an SSE event of maxBodyBytes passes and one byte more fails", async () => {
  let body: Uint8Array[] = [];
  await using server = chunkServer("text/event-stream", () => body);
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  await fc.assert(
    fc.asyncProperty(
      sseArb.filter(({ lines, tail }) => lines.length > 0 || tail !== ""),
      async ({ lines, tail, cuts }) => {
        const text = lines.map(([line, end]) => line + end).join("") + tail;
        const bytes = new TextEncoder().encode(text);
        const expected = referenceSse(UTF8.decode(bytes));
        const largest = largestEvent(text);
        for (const cap of [largest, largest - 1]) {
          if (cap < 0) continue;
          body = split(bytes, cuts);
          const [events] = await grab("GET /sse", {
            responseType: "sse",
            maxBodyBytes: cap,
          });
          assert(events !== null);
          const got: ServerSentEvent[] = [];
          for await (const event of events) got.push({ ...event });
          const context = `${JSON.stringify(text)} cap ${cap}`;
          if (cap === largest) {
            assertEquals(events.error, null, context);
            assertEquals(got, expected.events, context);
          } else {
            assertEquals(events.error?.kind, "too-large", context);
            assertEquals(got, expected.events.slice(0, got.length), context);
          }
        }
      },
    ),
    PARAMETERS,
  );
});

Deno.test("an NDJSON line of maxBodyBytes passes and one byte more fails", async () => {
  let body: Uint8Array[] = [];
  await using server = chunkServer("application/x-ndjson", () => body);
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  const valueLine = fc.jsonValue({ maxDepth: 2, stringUnit: "grapheme" }).map((
    v,
  ) => JSON.stringify(v));
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(valueLine, fc.constantFrom("\n", "\r\n")), {
        minLength: 1,
        maxLength: 8,
      }),
      fc.boolean(),
      fc.array(fc.nat(2_000), { maxLength: 12 }),
      async (lines, lastEnd, cuts) => {
        const text = lines.map(([line, end], i) =>
          line + (i < lines.length - 1 || lastEnd ? end : "")
        ).join("");
        const bytes = new TextEncoder().encode(text);
        const sizes = lines.map(([line]) =>
          new TextEncoder().encode(line).length
        );
        const largest = Math.max(...sizes);
        const values = lines.map(([line]) => JSON.parse(line));
        for (const cap of [largest, largest - 1]) {
          body = split(bytes, cuts);
          const [stream] = await grab("GET /nd", {
            responseType: "ndjson",
            maxBodyBytes: cap,
          });
          assert(stream !== null);
          const got: unknown[] = [];
          for await (const value of stream) got.push(value);
          const context = `${JSON.stringify(text)} cap ${cap}`;
          if (cap === largest) {
            assertEquals(stream.error, null, context);
            assertEquals(got, values, context);
          } else {
            assertEquals(stream.error?.kind, "too-large", context);
            assertEquals(got, values.slice(0, sizes.indexOf(largest)), context);
          }
        }
      },
    ),
    PARAMETERS,
  );
});

// ---------------------------------------------------------------- query

type Scalar = string | number | boolean | null | undefined;
type QueryValue = Scalar | Scalar[] | { [key: string]: QueryValue };

/**
 * The README's JSON-mode query format: a nested key is `outer[inner]`, a
 * list's items are the key repeated, `null` and `undefined` (also as list
 * items) are left out, in the order the keys were written.
 */
function referenceQuery(
  query: Record<string, QueryValue>,
  prefix = "",
): [string, string][] {
  const out: [string, string][] = [];
  for (const key of Object.keys(query)) {
    const name = prefix === "" ? key : `${prefix}[${key}]`;
    const value = query[key];
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (item !== null && item !== undefined) out.push([name, String(item)]);
      }
    } else if (typeof value === "object") {
      out.push(...referenceQuery(value, name));
    } else out.push([name, String(value)]);
  }
  return out;
}

const reservedArb = fc.array(
  fc.oneof(
    fc.constantFrom("&", "=", "+", "#", "%", "?", "/", " ", "%20", "é", "😀"),
    fc.string({ maxLength: 3 }),
  ),
  { maxLength: 4 },
).map((parts) => parts.join(""));
const queryKeyArb = reservedArb.filter((key) =>
  key !== "" && !/[[\]]/.test(key) && key !== "__proto__"
);
const scalarArb: fc.Arbitrary<Scalar> = fc.oneof(
  reservedArb,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
);
const queryArb = fc.letrec((tie) => ({
  object: fc.dictionary(queryKeyArb, tie("value"), { maxKeys: 4 }),
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalarArb,
    fc.array(scalarArb, { maxLength: 3 }),
    tie("object"),
  ),
})).object as fc.Arbitrary<Record<string, QueryValue>>;

Deno.test("a query object reaches the server as the README's format says", async () => {
  let seen: [string, string][] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      seen = [...new URL(request.url).searchParams];
      return new Response(null, { status: 204 });
    },
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  await fc.assert(
    fc.asyncProperty(queryArb, async (query) => {
      seen = [];
      const [, error] = await grab("GET /q", { query });
      assertEquals(error, null);
      assertEquals(seen, referenceQuery(query), JSON.stringify(query));
    }),
    PARAMETERS,
  );
});
