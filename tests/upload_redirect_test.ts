import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { Call, GrabTransportError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

Deno.test("a counted upload follows no more redirects than fetch does", async () => {
  await using fixture = startServer({
    "/loop": () =>
      new Response(null, { status: 307, headers: { location: "/loop" } }),
  });
  const grab = createGrab(fixture.url, { retry: 0 });
  const hops = async (counted: boolean) => {
    const before = fixture.requests.length;
    const [data, error] = await grab(
      "POST /loop",
      counted ? { body: "hello", onUploadProgress: () => {} } : {
        body: "hello",
      },
    );
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "network");
    return fixture.requests.length - before;
  };
  const plain = await hops(false);
  assertEquals(await hops(true), plain);
});

Deno.test("a counted upload's later hops are sent as fetch sends them", async () => {
  await using other = startServer(() => new Response(null, { status: 204 }));
  await using fixture = startServer({
    "/first": () =>
      new Response(null, { status: 307, headers: { location: "/second" } }),
    "/second": () =>
      new Response(null, {
        status: 308,
        headers: { location: `${other.url}/third` },
      }),
  });
  const grab = createGrab(fixture.url, {
    headers: { authorization: "Bearer secret" },
  });
  const seen = async (counted: boolean) => {
    const at = [fixture.requests.length, other.requests.length];
    const body = "hello";
    const [, error, meta] = await grab(
      "PUT /first",
      counted ? { body, onUploadProgress: () => {} } : { body },
    );
    assertEquals(error, null);
    assertEquals(meta.statusCode, 204);
    return [
      ...fixture.requests.slice(at[0]),
      ...other.requests.slice(at[1]),
    ].map((r) =>
      `${r.method} ${r.url.pathname} ${r.body} ${
        r.headers.get("authorization")
      }`
    );
  };
  const plain = await seen(false);
  assertEquals(plain.at(-1), "PUT /third hello null");
  assertEquals(await seen(true), plain);
});

Deno.test("a counted form keeps its boundary on every hop, with hooks too", async () => {
  await using fixture = startServer({
    "/first": () =>
      new Response(null, { status: 307, headers: { location: "/second" } }),
    "/second": () =>
      new Response(null, { status: 308, headers: { location: "/echo" } }),
    "/echo": (_request, seen) =>
      json({ type: seen.headers.get("content-type"), body: seen.body }),
  });
  const hooks = { afterResponse: (_request: Request, r: Response) => r };
  for (const given of [{}, { hooks }]) {
    const grab = createGrab(fixture.url, { retry: 0, ...given });
    const form = new FormData();
    form.set("pet", "cat");
    const [data, error] = await grab<{ type: string; body: string }>(
      "POST /first",
      { body: form, onUploadProgress: () => {} },
    );
    assertEquals(error, null);
    const boundary = data!.type.split("boundary=")[1]!;
    assert(data!.body.includes(boundary), `hooks: ${"hooks" in given}`);
  }
});

Deno.test("an afterResponse hook sees a counted upload's redirect as fetch shows it", async () => {
  await using fixture = startServer({
    "/first": () =>
      new Response(null, { status: 307, headers: { location: "/second" } }),
    "/second": () =>
      new Response(null, { status: 308, headers: { location: "/login" } }),
    "/login": () => json({ login: true }),
    "/stay": () => json({ login: false }),
  });
  for (const path of ["/first", "/stay"]) {
    const seen = [];
    for (const counted of [{}, { onUploadProgress: () => {} }]) {
      let told = "";
      const grab = createGrab(fixture.url, {
        retry: 0,
        hooks: {
          afterResponse: (_request, response) => {
            told = `${response.redirected} ${new URL(response.url).pathname}`;
          },
        },
      });
      const [, error] = await grab(`PUT ${path}` as "PUT /", {
        body: "hello",
        ...counted,
      });
      assertEquals(error, null);
      seen.push(told);
    }
    assertEquals(seen[1], seen[0], path);
  }
});

Deno.test("a counted upload's outcome names the URL it was redirected to as fetch does", async () => {
  await using fixture = startServer({
    "/first": () =>
      new Response(null, {
        status: 307,
        headers: { location: "/second?page=2#top" },
      }),
    "/second": () => json({ ok: true }),
  });
  const urls: string[] = [];
  for (const counted of [false, true]) {
    const outcome = await new Call("PUT /first", fixture.url).send({
      body: "hello",
      retry: 0,
      ...(counted ? { onUploadProgress: () => {} } : {}),
    });
    assert(outcome.ok);
    urls.push(outcome.url);
  }
  // A response's URL never has a fragment.
  assertEquals(urls, Array(2).fill(`${fixture.url}/second?page=2`));
});
