/**
 * grab under Deno's OpenTelemetry (`OTEL_DENO=true`, on for every app on
 * Deno Deploy): `fetch` makes a client span and sends its `traceparent`,
 * in the trace of the span the code runs in, such as the server span of
 * the request a handler serves. Every request a grab sends, each attempt,
 * redirect and page, belongs to the trace its grab was started in, with a
 * span of its own, even when grabs from many requests share timers.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { startServer } from "./_server.ts";

const GRABS = 16;

/** `traceparent`'s trace id and span id, or `undefined` for none. */
function parent(value: string | null): [string, string] | undefined {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/.exec(
    value ?? "",
  );
  return match ? [match[1]!, match[2]!] : undefined;
}

async function runChild(base: string): Promise<Record<string, string[]>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "tests/_otel_child.ts",
    ],
    cwd: new URL("../", import.meta.url).pathname,
    env: {
      NO_COLOR: "1",
      OTEL_DENO: "true",
      GRAB_BASE: base,
      GRABS: String(GRABS),
      // Spans go nowhere that answers: only propagation is looked at.
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const decoder = new TextDecoder();
  assert(output.success, decoder.decode(output.stderr));
  return JSON.parse(decoder.decode(output.stdout));
}

Deno.test("every request of a grab made in a server span carries that span's trace, with a span of its own", async () => {
  const answered = new Map<string, number>();
  const again = (key: string) => {
    const times = (answered.get(key) ?? 0) + 1;
    answered.set(key, times);
    return times;
  };
  await using server = startServer({
    "/probe": () => new Response("probe"),
    "/ok": () => Response.json({ ok: true }),
    "/busy/:id": (_, { url }) =>
      again(url.pathname) === 1
        ? new Response("busy", { status: 503, headers: { "retry-after": "0" } })
        : Response.json({ ok: true }),
    "/stall/:id": async (request, { url }) => {
      if (again(url.pathname) === 1) {
        await new Promise((resolve) =>
          request.signal.addEventListener("abort", resolve)
        );
      }
      return Response.json({ ok: true });
    },
    "/hang/:id": (request) =>
      new Promise((resolve) =>
        request.signal.addEventListener(
          "abort",
          () => resolve(new Response(null)),
        )
      ),
    "/let-go": () => new Response(null),
    "/moved/:id": () =>
      new Response(null, { status: 302, headers: { location: "/ok" } }),
    "/upload/:id": (_, { url }) =>
      again(url.pathname) === 1
        ? new Response(null, {
          status: 307,
          headers: { location: url.pathname },
        })
        : Response.json({ ok: true }),
    "/pages": (_, { url }) => {
      const page = Number(url.searchParams.get("page") ?? 1);
      const next = `</pages?page=${page + 1}>; rel="next"`;
      return Response.json([page], { headers: page < 3 ? { link: next } : {} });
    },
    "/events": () =>
      new Response("data: 1\n\ndata: 2\n\n", {
        headers: { "content-type": "text/event-stream" },
      }),
  });
  const told = await runChild(server.url);
  for (const [name, results] of Object.entries(told)) {
    assertEquals(results, Array(GRABS).fill("ok"), name);
  }
  // The trace each handler is in, as its plain fetch told it.
  const traceOf = new Map<string, string>();
  for (const seen of server.requests) {
    if (seen.url.pathname !== "/probe") continue;
    const [trace] = parent(seen.headers.get("traceparent"))!;
    traceOf.set(seen.headers.get("x-id")!, trace);
  }
  const wrong: string[] = [];
  const spans = new Set<string>();
  const counted = new Map<string, number>();
  for (const seen of server.requests) {
    if (seen.url.pathname === "/probe") continue;
    const id = seen.headers.get("x-id")!;
    const name = id.replace(/-\d+$/, "");
    counted.set(name, (counted.get(name) ?? 0) + 1);
    const [trace, span] = parent(seen.headers.get("traceparent")) ?? [];
    const where = `${seen.url.pathname}${seen.url.search} of ${id}`;
    if (trace === undefined) wrong.push(`${where}: no traceparent`);
    else if (trace !== traceOf.get(id)) wrong.push(`${where}: another trace`);
    // `fetch` follows a redirect in the span it made for the first hop
    // (a plain `fetch` does the same): only each attempt has a span of
    // its own.
    const hop = name === "redirect" && seen.url.pathname === "/ok";
    if (span !== undefined && !hop && spans.has(span)) {
      wrong.push(`${where}: a span used again`);
    }
    if (span !== undefined) spans.add(span);
  }
  assertEquals(wrong, []);
  // Each request served is in a trace of its own.
  assertEquals(new Set(traceOf.values()).size, traceOf.size);
  assertEquals(traceOf.size, Object.keys(told).length * GRABS);
  assertEquals(Object.fromEntries(counted), {
    plain: GRABS,
    timeout: GRABS,
    hooks: GRABS,
    retry: 2 * GRABS,
    attemptTimeout: 2 * GRABS,
    backoff: 2 * GRABS,
    upload: 2 * GRABS,
    hookOnTimeout: 2 * GRABS,
    redirect: 2 * GRABS,
    customFetch: GRABS,
    paginate: 3 * GRABS,
    sse: GRABS,
  });
});
