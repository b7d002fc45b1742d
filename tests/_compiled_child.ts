/**
 * The program compile_test.ts runs as `deno compile` would ship it: it uses
 * each module grab loads on first use (the JSON:API codec, the module of
 * live bodies, upload progress) against a server of its own, and writes
 * one JSON line with what each gave and the rejections nobody handled.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report, watchUnhandled } from "./_memory.ts";

const unhandled = watchUnhandled();
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    const sent = await request.text();
    const { pathname } = new URL(request.url);
    if (pathname === "/live") {
      return new Response("data: 1\n\ndata: 2\n\n", {
        headers: { "content-type": "text/event-stream" },
      });
    }
    if (pathname === "/lines") return new Response('{"n":1}\n{"n":2}\n');
    if (pathname === "/upload") return Response.json({ sent });
    return Response.json({
      data: { type: "articles", id: "1", attributes: { title: "T" } },
    });
  },
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, { retry: 0 });
const outcomes: Record<string, unknown> = {};
const failed = (error: Error) => `${error.name}: ${error.message}`;
{
  const [data, error] = await grab("GET /article", { format: "json-api" });
  outcomes["json-api"] = error ? failed(error) : data;
}
{
  const [events, error] = await grab("GET /live", { responseType: "sse" });
  const seen: string[] = [];
  for await (const event of events ?? []) seen.push(event.data);
  outcomes.sse = error ? failed(error) : seen;
}
{
  const [values, error] = await grab("GET /lines", { responseType: "ndjson" });
  const seen: unknown[] = [];
  for await (const value of values ?? []) seen.push(value);
  outcomes.ndjson = error ? failed(error) : seen;
}
{
  const [body, error] = await grab("GET /live", { responseType: "stream" });
  outcomes.stream = error ? failed(error) : await new Response(body).text();
}
{
  let calls = 0;
  const [data, error] = await grab("POST /upload", {
    body: "hello",
    onUploadProgress: () => calls++,
  });
  outcomes.upload = error ? failed(error) : { data, told: calls > 0 };
}
await server.shutdown();
await report({ outcomes, unhandled });
