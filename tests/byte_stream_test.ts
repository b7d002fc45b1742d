import {
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";
import { paced, type Tap, tap, tapped } from "./_streams.ts";

function server() {
  const taps: Tap[] = [];
  const fixture = startServer({
    "/file": () =>
      new Response(paced(["abc", "def", "ghi"]), {
        headers: { "content-length": "9" },
      }),
    "/live": () => {
      const next = tap();
      taps.push(next);
      return new Response(next.body);
    },
    "/head": () => new Response("x"),
  });
  return Object.assign(fixture, { taps });
}

Deno.test("responseType stream", async (t) => {
  await using fixture = server();
  const grab = createGrab(fixture.url);

  await t.step(
    "the body as a ReadableStream, read to the end by the caller",
    async () => {
      const loaded: number[] = [];
      const [stream, error] = await grab("GET /file", {
        responseType: "stream",
        onDownloadProgress: (progress) => {
          loaded.push(progress.loaded);
          assertEquals(progress.total, 9);
        },
      });
      assertEquals(error, null);
      assertInstanceOf(stream, ReadableStream);
      assertEquals(await new Response(stream).text(), "abcdefghi");
      assertEquals(loaded.at(-1), 9);
    },
  );

  await t.step(
    "maxBodyBytes does not bound it: grab buffers nothing",
    async () => {
      const [stream] = await grab("GET /file", {
        responseType: "stream",
        maxBodyBytes: 2,
      });
      assertEquals(await new Response(stream).text(), "abcdefghi");
    },
  );

  await t.step("cancelling it releases the body", async () => {
    const [stream] = await grab("GET /live", { responseType: "stream" });
    const live = await tapped(fixture.taps, 1);
    await stream!.cancel();
    await live.cancelled;
  });

  await t.step(
    "the caller's signal errors a read with kind abort",
    async () => {
      const controller = new AbortController();
      const [stream] = await grab("GET /live", {
        responseType: "stream",
        signal: controller.signal,
      });
      const live = await tapped(fixture.taps, 2);
      const reader = stream!.getReader();
      live.write("a");
      assertEquals((await reader.read()).value?.byteLength, 1);
      controller.abort();
      const error = await assertRejects(
        () => reader.read(),
        GrabTransportError,
      );
      assertEquals(error.kind, "abort");
      await live.cancelled;
    },
  );

  await t.step(
    "a progress callback that throws errors the stream with its error",
    async () => {
      const oops = new Error("bar broke");
      const [stream] = await grab("GET /file", {
        responseType: "stream",
        onDownloadProgress: () => {
          throw oops;
        },
      });
      const reader = stream!.getReader();
      const error = await assertRejects(() => reader.read());
      assertStrictEquals(error, oops);
    },
  );

  await t.step("HEAD gives null", async () => {
    const [data, error] = await grab("HEAD /head", { responseType: "stream" });
    assertEquals([data, error], [null, null]);
  });
});
