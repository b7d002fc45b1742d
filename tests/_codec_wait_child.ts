/**
 * Child process of options_object_test.ts: the first JSON:API grabs of a
 * program, made while the JSON:API codec is still loading, with the
 * caller's body, query, path parameters and bytes changed right after each
 * call, as a loop that reuses one object does. Writes one JSON line with
 * what the server received, in the order sent.
 *
 * @module
 */

import { report } from "./_memory.ts";

const seen: string[] = [];
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    const { pathname, search } = new URL(request.url);
    const body = await request.text();
    seen.push(`${request.method} ${pathname}${search} ${body}`);
    return Response.json({ data: null });
  },
);
const { default: createGrab, Call } = await import("../mod.ts");
const url = `http://127.0.0.1:${server.addr.port}`;
const grab = createGrab(url, { format: "json-api", retry: 0 });
const body = { type: "notes", n: 0 };
const query = { page: { number: 0 } };
const params = { id: 0 };
const pending: Promise<unknown>[] = [];
for (let n = 1; n <= 3; n++) {
  body.n = n;
  query.page.number = n;
  params.id = n;
  pending.push(grab("POST /notes/:id", { body, query, params }));
}
const bytes = new Uint8Array([1, 2, 3]);
pending.push(grab("PUT /raw", { body: bytes }));
bytes.fill(0);
const sendBody = { type: "notes", n: 4 };
pending.push(new Call("POST /sent", url).send({
  format: "json-api",
  retry: 0,
  body: sendBody,
}));
sendBody.n = 5;
// Bytes fetch would refuse are refused as after the load, never copied.
const shared = new Uint8Array(new SharedArrayBuffer(3));
const moved = new ArrayBuffer(3);
structuredClone(moved, { transfer: [moved] });
const refused: string[] = [];
for (const body of [shared, moved]) {
  pending.push(
    grab("PUT /refused", { body }).catch((error: Error) => {
      refused.push(error.message);
    }),
  );
}
await Promise.all(pending);
await server.shutdown();
await report({ seen, refused });
Deno.exit(0);
