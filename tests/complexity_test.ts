/**
 * Input of a hostile shape, sized so that work linear in it is quick and
 * work in the square of it blocks the event loop for seconds or minutes.
 * Each test checks the result only: no duration is asserted.
 *
 * @module
 */
import { assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { startServer } from "./_server.ts";
import { assertOk, settles } from "./_bounds.ts";

/** `start()`, called a tick after the caller's hang guard has begun. */
function later<T>(start: () => Promise<T>): Promise<T> {
  return Promise.resolve().then(start);
}

/**
 * A raw HTTP/1.1 server that answers each request with the length of its
 * `x-long` header: `Deno.serve` refuses a head this large with a 400.
 */
function headServer(): { url: string } & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const answer = async (conn: Deno.Conn) => {
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(64 * 1024);
    let head = "";
    while (!head.includes("\r\n\r\n")) {
      const read = await conn.read(buffer);
      if (read === null) return;
      head += decoder.decode(buffer.subarray(0, read), { stream: true });
    }
    const line = head.split("\r\n").find((line) =>
      line.toLowerCase().startsWith("x-long:")
    );
    const value = line?.slice("x-long:".length).trim() ?? "";
    const body = JSON.stringify({ length: value.length, end: value.slice(-2) });
    await conn.write(new TextEncoder().encode(
      "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" +
        `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    ));
  };
  const accepting = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      answer(conn).catch(() => {}).finally(() => {
        open.delete(conn);
        conn.close();
      });
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of open) conn.close();
      await accepting.catch(() => {});
    },
  };
}

Deno.test("a header value with a long run of spaces inside is trimmed in time linear in it", async () => {
  await using server = headServer();
  // 400,000 spaces between two letters and one after: the trim's old
  // `/[\t ]+$/` tried each start in the run, about two minutes of work
  // (20 ms now). Started a tick late, so that the hang guard is running.
  const inside = " ".repeat(400_000);
  const grab = createGrab(server.url, { retry: 0 });
  const result = await settles(
    later(() => grab("GET /", { headers: { "x-long": `a${inside}b ` } })),
  );
  assertEquals(assertOk(result), { length: 400_002, end: " b" });
});

Deno.test("a base address whose path is many slashes then a letter is joined in time linear in it", async () => {
  await using server = startServer((request) =>
    Response.json({ length: new URL(request.url).pathname.length })
  );
  // 65,000 slashes, about the longest URL fetch sends: the old `/\/+$/` tried
  // each start in the run, seconds of work per call, half a minute for these
  // twenty (milliseconds now). Started a tick late, so that the hang guard is
  // running.
  const slashes = "/".repeat(65_000);
  const grab = createGrab(`${server.url}/${slashes}a/`, { retry: 0 });
  const lengths = await settles(later(async () => {
    const seen: unknown[] = [];
    for (let i = 0; i < 20; i++) seen.push(assertOk(await grab("GET /b")));
    return seen;
  }));
  assertEquals(lengths, Array(20).fill({ length: 65_004 }));
});
