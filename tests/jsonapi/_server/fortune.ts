/**
 * A Fortune.js JSON:API server for tests/jsonapi/integration_test.ts, run as
 * a child process: `fortune` (in-memory adapter) behind its HTTP listener
 * `fortune-http`, with the `fortune-json-api` serializer, on `node:http`,
 * 127.0.0.1 and an ephemeral port. It prints its base address on the first
 * line of stdout and serves until its stdin closes, so it never outlives the
 * test that started it.
 *
 * A child process because fortune-http reads its own files (the HTML
 * serializer's stylesheet) from the npm cache when it loads, which the test
 * task's `--allow-read=.` does not cover.
 *
 * Run: `deno run --allow-net=127.0.0.1 --allow-read --allow-env
 * tests/jsonapi/_server/fortune.ts` (`--allow-env`: clean-css, loaded by
 * fortune-http, reads `HTTP_PROXY` when it loads).
 *
 * @module
 */

import http from "node:http";
import fortune from "npm:fortune@5.5.19";
import fortuneHTTP from "npm:fortune-http@1.2.26";
import jsonApiSerializer from "npm:fortune-json-api@2.3.1";

const { BadRequestError } = fortune.errors;

const store = fortune({
  person: {
    name: String,
    posts: [Array("post"), "author"],
  },
  post: {
    title: String,
    wordCount: Number,
    publishedAt: Date,
    author: ["person", "posts"],
    tags: [Array("tag")],
  },
  tag: { label: String },
}, {
  hooks: {
    // Fortune's place for validation is an input hook that throws. The
    // JSON:API serializer copies the error's own enumerable properties into
    // the error object, so the hook can point at the offending attribute.
    post: [(
      context: { request: { method: string } },
      record: { wordCount?: number | null },
      update?: unknown,
    ) => {
      const { method } = context.request;
      if (
        method === fortune.methods.create &&
        typeof record.wordCount === "number" && record.wordCount < 0
      ) {
        throw Object.assign(
          new BadRequestError("A word count cannot be negative."),
          { source: { pointer: "/data/attributes/word-count" } },
        );
      }
      // What gets persisted: the record on create, the update on update.
      return method === fortune.methods.update ? update : record;
    }],
  },
});

const listener = fortuneHTTP(store, {
  serializers: [[jsonApiSerializer, {}]],
});

const server = http.createServer((request, response) => {
  // The listener answers every request itself, errors included, and then
  // rejects with the error it answered with.
  listener(request, response).catch(() => {});
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  const line = new TextEncoder().encode(`http://127.0.0.1:${port}\n`);
  Deno.stdout.write(line).catch(() => Deno.exit(1));
});

await Deno.stdin.readable.pipeTo(new WritableStream());
Deno.exit(0);
