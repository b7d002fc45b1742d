/**
 * The streaming APIs people read with grab, end to end, against local
 * servers that send what the real services send: OpenAI's Chat Completions
 * and Responses, Anthropic's Messages, Gemini's SSE, Ollama's NDJSON, and
 * proxies that buffer the whole body or split it into single bytes.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  type GrabStream,
  isGrabHttpError,
  isGrabTransportError,
  type ServerSentEvent,
} from "../mod.ts";
import { z } from "./_npm.ts";

const encoder = new TextEncoder();

type Delivery = "chunks" | "one" | "bytes";

/** A body of `parts`, as the server sends them or as a proxy passes them on. */
function body(parts: string[], delivery: Delivery): ReadableStream<Uint8Array> {
  const chunks = delivery === "chunks"
    ? parts.map((part) => encoder.encode(part))
    : delivery === "one"
    ? [encoder.encode(parts.join(""))]
    : [...encoder.encode(parts.join(""))].map((byte) => Uint8Array.of(byte));
  let i = 0;
  // One turn of the event loop between chunks; cleared when the client
  // lets go, so no timer outlives the test.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake = () => {};
  return new ReadableStream({
    async pull(controller) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, 0);
      });
      if (timer === undefined) return;
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      wake();
    },
  });
}

interface Seen {
  method: string;
  accept: string | null;
  contentType: string | null;
  body: unknown;
}

function serve(
  handler: (request: Request, seen: Seen) => Response | Promise<Response>,
) {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const text = await request.text();
      const one: Seen = {
        method: request.method,
        accept: request.headers.get("accept"),
        contentType: request.headers.get("content-type"),
        body: text === "" ? undefined : JSON.parse(text),
      };
      seen.push(one);
      return handler(request, one);
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

const SSE = { "content-type": "text/event-stream; charset=utf-8" };

const OPENAI_CHAT = [
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null}]}\n\n',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"lo!"},"logprobs":null,"finish_reason":null}]}\n\n',
  'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}\n\n',
  "data: [DONE]\n\n",
];

for (const delivery of ["chunks", "one", "bytes"] as const) {
  Deno.test(`the README's OpenAI chat recipe reads a stream sent in ${delivery}`, async () => {
    await using server = serve(() =>
      new Response(body(OPENAI_CHAT, delivery), { headers: SSE })
    );
    const openai = createGrab(server.url, {
      headers: { authorization: "Bearer sk-test" },
    });
    const [events, error] = await openai("POST /chat/completions", {
      body: {
        model: "gpt-4o-mini",
        stream: true,
        messages: [{ role: "user", content: "Hi" }],
      },
      responseType: "sse",
      attemptTimeout: 120_000,
    });
    if (error) throw error;
    if (events === null) throw new Error("No stream: the server sent 204");
    let reply = "";
    for await (const { data } of events) {
      if (data === "[DONE]") break;
      const chunk = JSON.parse(data);
      // A failure after the 200 comes as a chunk of its own.
      if (chunk.error) throw new Error(chunk.error.message);
      reply += chunk.choices[0]?.delta?.content ?? "";
    }
    assertEquals(events.error, null);
    assertEquals(reply, "Hello!");
    const request = server.seen[0]!;
    assertEquals(request.method, "POST");
    assertEquals(request.accept, "text/event-stream");
    assertStringIncludes(request.contentType ?? "", "application/json");
    assertEquals((request.body as { stream: boolean }).stream, true);
  });
}

// The README's OpenAI recipe, its loop as written, against a stream the
// server ends with an error chunk after two deltas: no half reply.
Deno.test("the README's OpenAI chat recipe does not take a stream ended by an error chunk for a reply", async () => {
  const failed =
    'data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}\n\n';
  await using server = serve(() =>
    new Response(body([...OPENAI_CHAT.slice(0, 3), failed], "chunks"), {
      headers: SSE,
    })
  );
  const readme = await Deno.readTextFile("README.md");
  const start = readme.indexOf("### An OpenAI-style chat stream");
  const block = readme.slice(start, readme.indexOf("```\n", start + 40));
  const loop = block.slice(
    block.indexOf("let reply"),
    block.indexOf("if (events.error)"),
  );
  const run = new Function(
    "events",
    `return (async () => { ${loop}; return reply; })();`,
  ) as (events: GrabStream<ServerSentEvent>) => Promise<string>;
  const [events] = await createGrab(server.url)("POST /chat/completions", {
    body: { stream: true },
    responseType: "sse",
  });
  const error = await assertRejects(() => run(events!));
  assertStringIncludes((error as Error).message, "The server had an error");
});

const ANTHROPIC = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: ping\ndata: {"type": "ping"}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}\n\n',
];
const ANTHROPIC_END = [
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
];
const ANTHROPIC_OVERLOADED =
  'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';

const Delta = z.object({
  type: z.string(),
  delta: z.object({ text: z.string().optional() }).optional(),
});

async function anthropicStream<S extends z.ZodType = typeof Delta>(
  url: string,
  schema: S = Delta as unknown as S,
) {
  const anthropic = createGrab(url, {
    headers: { "x-api-key": "key", "anthropic-version": "2023-06-01" },
  });
  const [events, error] = await anthropic("POST /messages", {
    body: {
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    },
    responseType: "sse",
    attemptTimeout: 120_000,
    schema,
  });
  if (error) throw error;
  if (events === null) throw new Error("No stream: the server sent 204");
  return events;
}

for (const delivery of ["chunks", "one", "bytes"] as const) {
  Deno.test(`the README's Anthropic recipe reads a stream sent in ${delivery}`, async () => {
    await using server = serve(() =>
      new Response(body([...ANTHROPIC, ...ANTHROPIC_END], delivery), {
        headers: SSE,
      })
    );
    const events = await anthropicStream(server.url);
    let reply = "";
    const types: string[] = [];
    for await (const { event, data } of events) {
      types.push(event);
      if (event === "content_block_delta") reply += data.delta?.text ?? "";
    }
    assertEquals(events.error, null);
    assertEquals(reply, "Hello");
    assertEquals(types.length, 8);
    assertEquals(server.seen[0]!.accept, "text/event-stream");
  });
}

Deno.test("an Anthropic overloaded_error mid-stream reaches the loop as an event", async () => {
  await using server = serve(() =>
    new Response(body([...ANTHROPIC, ANTHROPIC_OVERLOADED], "chunks"), {
      headers: SSE,
    })
  );
  const events = await anthropicStream(server.url);
  const errors: unknown[] = [];
  for await (const { event, data } of events) {
    if (event === "error") errors.push(data);
  }
  assertEquals(events.error, null);
  assertEquals(errors, [{ type: "error" }]);
});

// The README's Anthropic recipe, as written, against a stream the server
// ends with an overloaded_error: the recipe must not print half a reply as
// if it were the whole.
Deno.test("the README's Anthropic recipe does not take an overloaded stream for a reply", async () => {
  await using server = serve(() =>
    new Response(body([...ANTHROPIC, ANTHROPIC_OVERLOADED], "chunks"), {
      headers: SSE,
    })
  );
  const readme = await Deno.readTextFile("README.md");
  const start = readme.indexOf(
    "### An Anthropic-style stream with named events",
  );
  const block = readme.slice(
    readme.indexOf("```ts", start) + 5,
    readme.indexOf("```\n", readme.indexOf("```ts", start)),
  );
  // The recipe's schema and loop, run as written.
  const schemaAt = block.indexOf("const ", block.indexOf("z.object") - 20);
  const name = block.slice(schemaAt + 6, block.indexOf(" =", schemaAt));
  const definition = block.slice(schemaAt, block.indexOf("});", schemaAt) + 3);
  const schema = new Function("z", `${definition} return ${name};`)(z);
  const loop = block.slice(
    block.indexOf("let reply"),
    block.indexOf("console.log"),
  );
  const run = new Function(
    "events",
    `return (async () => { ${loop}; return reply; })();`,
  ) as (events: GrabStream<ServerSentEvent<unknown>>) => Promise<string>;
  const events = await anthropicStream(server.url, schema);
  let outcome: string;
  try {
    outcome = `replied ${JSON.stringify(await run(events))}`;
  } catch (error) {
    outcome = `threw ${(error as Error).message}`;
  }
  assert(outcome.startsWith("threw"), outcome);
  assertStringIncludes(outcome, "Overloaded");
});

const RESPONSES = [
  'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress"}}\n\n',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hel"}\n\n',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"lo"}\n\n',
];
const RESPONSES_DONE =
  'event: response.completed\ndata: {"type":"response.completed","sequence_number":3,"response":{"id":"resp_1","status":"completed"}}\n\n';
const RESPONSES_ERROR =
  'event: error\ndata: {"type":"error","sequence_number":3,"code":"server_error","message":"The server had an error","param":null}\n\n';

for (const last of [RESPONSES_DONE, RESPONSES_ERROR]) {
  Deno.test(`an OpenAI Responses stream ending in ${last.slice(7, last.indexOf("\n"))} is read to its end`, async () => {
    await using server = serve(() =>
      new Response(body([...RESPONSES, last], "bytes"), { headers: SSE })
    );
    const ResponseEvent = z.object({
      type: z.string(),
      delta: z.string().optional(),
      message: z.string().optional(),
    });
    const grab = createGrab(server.url);
    const [events, error] = await grab("POST /responses", {
      body: { model: "gpt-4.1", input: "Hi", stream: true },
      responseType: "sse",
      schema: ResponseEvent,
      idleTimeout: 10_000,
    });
    if (error) throw error;
    let reply = "";
    let failed: string | undefined;
    for await (const { event, data } of events ?? []) {
      if (event === "response.output_text.delta") reply += data.delta;
      if (event === "error") failed = data.message;
    }
    assertEquals(events?.error, null);
    assertEquals(reply, "Hello");
    assertEquals(
      failed,
      last === RESPONSES_ERROR ? "The server had an error" : undefined,
    );
  });
}

Deno.test("a Gemini stream with CRLF line ends is read split into bytes", async () => {
  const chunk = (text: string, finish?: string) =>
    `data: ${
      JSON.stringify({
        candidates: [{
          content: { parts: [{ text }], role: "model" },
          ...(finish ? { finishReason: finish } : {}),
          index: 0,
        }],
        modelVersion: "gemini-2.0-flash",
      })
    }\r\n\r\n`;
  await using server = serve(() =>
    new Response(body([chunk("Hel"), chunk("lo", "STOP")], "bytes"), {
      headers: { "content-type": "text/event-stream" },
    })
  );
  const gemini = createGrab(server.url);
  const [events, error] = await gemini(
    "POST /v1beta/models/gemini-2.0-flash:streamGenerateContent",
    {
      query: { alt: "sse" },
      body: { contents: [{ parts: [{ text: "Hi" }] }] },
      responseType: "sse",
      schema: z.object({
        candidates: z.array(z.object({
          content: z.object({ parts: z.array(z.object({ text: z.string() })) }),
        })),
      }),
    },
  );
  if (error) throw error;
  let reply = "";
  for await (const { data } of events ?? []) {
    reply += data.candidates[0]?.content.parts[0]?.text ?? "";
  }
  assertEquals(events?.error, null);
  assertEquals(reply, "Hello");
});

Deno.test("an Ollama NDJSON chat stream ends at its done object", async () => {
  const line = (content: string, done: boolean) =>
    JSON.stringify({
      model: "llama3.2",
      created_at: "2025-01-01T00:00:00Z",
      message: { role: "assistant", content },
      done,
      ...(done ? { done_reason: "stop", total_duration: 1 } : {}),
    }) + "\n";
  await using server = serve(() =>
    new Response(
      body([line("Hel", false), line("lo", false), line("", true)], "bytes"),
      {
        headers: { "content-type": "application/x-ndjson" },
      },
    )
  );
  const grab = createGrab(server.url);
  const [lines, error] = await grab<
    { message: { content: string }; done: boolean }
  >("POST /api/chat", {
    body: { model: "llama3.2", messages: [{ role: "user", content: "Hi" }] },
    responseType: "ndjson",
  });
  if (error) throw error;
  let reply = "";
  let done = false;
  for await (const chunk of lines ?? []) {
    reply += chunk.message.content;
    done = chunk.done;
  }
  assertEquals(lines?.error, null);
  assertEquals([reply, done], ["Hello", true]);
  assertEquals(server.seen[0]!.accept, "application/x-ndjson");
});

Deno.test("a 429 with Retry-After before the stream is waited out when POST may be retried", async () => {
  let calls = 0;
  await using server = serve(() =>
    ++calls === 1
      ? Response.json(
        { error: { message: "Rate limit reached", type: "requests" } },
        { status: 429, headers: { "retry-after": "0" } },
      )
      : new Response(body(OPENAI_CHAT, "one"), { headers: SSE })
  );
  const grab = createGrab(server.url);
  const [events, error] = await grab("POST /chat/completions", {
    body: { stream: true },
    responseType: "sse",
    retry: { limit: 1, methods: ["POST"] },
  });
  if (error) throw error;
  let count = 0;
  for await (const { data } of events ?? []) if (data !== "[DONE]") count++;
  assertEquals([count, events?.error, calls], [4, null, 2]);
});

Deno.test("a 429 before the stream is a GrabError with its JSON body", async () => {
  await using server = serve(() =>
    Response.json(
      { error: { message: "Rate limit reached", type: "requests" } },
      { status: 429, headers: { "retry-after": "20" } },
    )
  );
  const grab = createGrab(server.url);
  const [events, error] = await grab("POST /chat/completions", {
    body: { stream: true },
    responseType: "sse",
  });
  assertEquals(events, null);
  assert(isGrabHttpError(error), String(error));
  assertEquals(error?.statusCode, 429);
  assertEquals(error?.headers.get("retry-after"), "20");
  assertEquals(
    (error?.body as { error: { message: string } }).error.message,
    "Rate limit reached",
  );
});

Deno.test("a 200 JSON body where a stream was asked for fails at the head, saying so", async () => {
  await using server = serve(() =>
    Response.json({
      id: "chatcmpl-1",
      choices: [{ message: { content: "Hi" } }],
    })
  );
  const grab = createGrab(server.url);
  const [events, error] = await grab("POST /chat/completions", {
    body: { stream: false },
    responseType: "sse",
  });
  assertEquals(events, null);
  assert(isGrabTransportError(error), String(error));
  assertEquals(error.kind, "parse");
  assertStringIncludes(error?.message ?? "", "application/json");
  assertStringIncludes(error?.message ?? "", 'responseType "text"');
});

/** A stream that sends `first` and then stalls until the client lets go. */
function stalling(first: string) {
  let cancelled!: () => void;
  const gone = new Promise<void>((resolve) => (cancelled = resolve));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(first));
    },
    cancel() {
      cancelled();
    },
  });
  return { stream, gone };
}

Deno.test("breaking out early releases a stream that never ends", async () => {
  let gone: Promise<void> | undefined;
  await using server = serve(() => {
    const stalled = stalling(OPENAI_CHAT[0]! + OPENAI_CHAT[1]!);
    gone = stalled.gone;
    return new Response(stalled.stream, { headers: SSE });
  });
  const grab = createGrab(server.url);
  const [events, error] = await grab("POST /chat/completions", {
    body: { stream: true },
    responseType: "sse",
  });
  if (error) throw error;
  let seen = 0;
  for await (const _ of events ?? []) if (++seen === 2) break;
  await gone;
  assertEquals([seen, events?.error], [2, null]);
});

Deno.test("idleTimeout ends a stalled stream with kind timeout and says what to do", async () => {
  await using server = serve(() =>
    new Response(stalling('id: 5\nretry: 3000\ndata: {"a":1}\n\n').stream, {
      headers: SSE,
    })
  );
  const grab = createGrab(server.url);
  const [events, error] = await grab("GET /events", {
    responseType: "sse",
    idleTimeout: 50,
  });
  if (error) throw error;
  const seen: ServerSentEvent[] = [];
  for await (const event of events ?? []) seen.push(event);
  assertEquals(seen, [{
    event: "message",
    data: '{"a":1}',
    id: "5",
    retry: 3000,
  }]);
  assertEquals(events?.lastEventId, "5");
  assertEquals(events?.error?.kind, "timeout");
  assertStringIncludes(events?.error?.message ?? "", "idleTimeout (50 ms)");
});

Deno.test("the caller's signal ends a stalled stream with kind abort", async () => {
  await using server = serve(() =>
    new Response(stalling('data: {"a":1}\n\n').stream, { headers: SSE })
  );
  const controller = new AbortController();
  const grab = createGrab(server.url);
  const [events, error] = await grab("GET /events", {
    responseType: "sse",
    signal: controller.signal,
  });
  if (error) throw error;
  let seen = 0;
  for await (const _ of events ?? []) {
    seen++;
    controller.abort();
  }
  assertEquals([seen, events?.error?.kind], [1, "abort"]);
});
