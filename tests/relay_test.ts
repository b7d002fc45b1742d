import { assertEquals } from "@std/assert";
import { STATUS_CODE } from "@std/http/status";
import relay, { createRelay } from "../examples/relay.ts";
import { json, startServer } from "./_server.ts";
import { type Tap, tap } from "./_streams.ts";

/** Real milliseconds a wait may take before the test fails instead. */
const BOUND_MS = 10_000;

/** `promise`, or a failure naming `what` after {@linkcode BOUND_MS}. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Waited ${BOUND_MS} ms for ${what}`)),
      BOUND_MS,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The first upstream request's body, once the relay has made it. */
async function firstTap(api: { taps: Tap[] }): Promise<Tap> {
  const started = performance.now();
  while (api.taps.length === 0) {
    if (performance.now() - started > BOUND_MS) {
      throw new Error(`Waited ${BOUND_MS} ms for the upstream request`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return api.taps[0]!;
}

function chunk(content?: string): string {
  const delta = content === undefined ? { role: "assistant" } : { content };
  return `data: ${JSON.stringify({ choices: [{ delta }] })}\n\n`;
}

/** An OpenAI-style upstream whose stream bodies the test writes. */
function upstream() {
  const taps: Tap[] = [];
  const server = startServer({
    "/chat/completions": () => {
      const next = tap();
      taps.push(next);
      return new Response(next.body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
    "/down/chat/completions": () =>
      json({ error: "overloaded" }, { status: STATUS_CODE.ServiceUnavailable }),
  });
  return Object.assign(server, { taps });
}

/** The relay served on its own loopback port, as `deno serve` would. */
function served(handler: (request: Request) => Promise<Response>) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

function ask(url: string, prompt: unknown = "Hi"): Promise<Response> {
  return fetch(`${url}/chat`, {
    method: "POST",
    body: JSON.stringify({ prompt }),
  });
}

Deno.test("examples/relay.ts", async (t) => {
  await t.step("exports a Deno.serve default with fetch", () => {
    assertEquals(typeof relay.fetch, "function");
  });

  await t.step("relays the text, then done", async () => {
    await using api = upstream();
    await using app = served(createRelay(api.url, { token: "k3y" }));
    const answer = ask(app.url);
    const body = await firstTap(api);
    body.write(chunk() + chunk("Hel"));
    body.write(chunk("lo") + "data: [DONE]\n\n");
    const response = await within(answer, "the relay's answer");
    assertEquals(response.status, STATUS_CODE.OK);
    assertEquals(response.headers.get("content-type"), "text/event-stream");
    assertEquals(
      await within(response.text(), "the relayed stream"),
      'data: {"text":"Hel"}\n\n' + 'data: {"text":"lo"}\n\n' +
        "event: done\ndata: {}\n\n",
    );
    // The upstream stream was let go at [DONE], though its server kept it.
    await within(body.cancelled, "the upstream stream's release");
    const sent = api.requests[0]!;
    assertEquals(sent.headers.get("authorization"), "Bearer k3y");
    assertEquals(JSON.parse(sent.body).stream, true);
    assertEquals(JSON.parse(sent.body).messages[0].content, "Hi");
  });

  await t.step("ends the upstream stream when the client leaves", async () => {
    await using api = upstream();
    await using app = served(createRelay(api.url));
    const answer = ask(app.url);
    const body = await firstTap(api);
    body.write(chunk("one"));
    const response = await within(answer, "the relay's answer");
    const reader = response.body!.getReader();
    const first = await within(reader.read(), "the first event");
    assertEquals(
      new TextDecoder().decode(first.value),
      'data: {"text":"one"}\n\n',
    );
    // The client goes while the upstream is silent: nothing more is ever
    // written, and only the client's leaving can end the upstream stream.
    await reader.cancel();
    try {
      await within(body.cancelled, "the upstream stream's release");
    } finally {
      body.close(); // else a relay that failed would hold the servers open
    }
  });

  await t.step(
    "says error with the kind when the upstream breaks off",
    async () => {
      await using api = upstream();
      await using app = served(createRelay(api.url));
      const answer = ask(app.url);
      const body = await firstTap(api);
      body.write(chunk("par"));
      body.fail();
      const response = await within(answer, "the relay's answer");
      assertEquals(
        await within(response.text(), "the relayed stream"),
        'data: {"text":"par"}\n\n' +
          'event: error\ndata: {"kind":"network"}\n\n',
      );
    },
  );

  await t.step(
    "says error with timeout when the upstream goes silent",
    async () => {
      await using api = upstream();
      await using app = served(createRelay(api.url, { idleTimeout: 100 }));
      const answer = ask(app.url);
      const body = await firstTap(api);
      body.write(chunk("par"));
      const response = await within(answer, "the relay's answer");
      try {
        assertEquals(
          await within(response.text(), "the relayed stream"),
          'data: {"text":"par"}\n\n' +
            'event: error\ndata: {"kind":"timeout"}\n\n',
        );
        await within(body.cancelled, "the upstream stream's release");
      } finally {
        body.close(); // else a relay that failed would hold the servers open
      }
    },
  );

  await t.step("answers 502 when the upstream refuses", async () => {
    await using api = upstream();
    const handler = createRelay(`${api.url}/down`);
    const response = await handler(
      new Request("http://relay.test/chat", {
        method: "POST",
        body: JSON.stringify({ prompt: "Hi" }),
      }),
    );
    assertEquals(response.status, STATUS_CODE.BadGateway);
    assertEquals(await response.json(), { error: "upstream answered 503" });
  });

  await t.step("answers 400 for a prompt that is not text", async () => {
    await using api = upstream();
    await using app = served(createRelay(api.url));
    const response = await ask(app.url, 42);
    assertEquals(response.status, STATUS_CODE.BadRequest);
    assertEquals(await response.json(), { error: "prompt must be text" });
    assertEquals(api.requests.length, 0);
  });
});
