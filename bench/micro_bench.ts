/**
 * Micro-benchmarks of the hot helpers, so a regression shows up in
 * `deno bench`. Run: deno task bench:micro
 *
 * @module
 */

import { convertKeys } from "../src/convert_keys.ts";
import { parseEndpoint } from "../src/endpoint.ts";
import { denormalise } from "../src/jsonapi/denormalise.ts";
import { serialiseQuery } from "../src/query.ts";
import { fillUrl } from "../src/fill_url.ts";
import { joinUrl } from "../src/url.ts";
import { compoundDocument } from "./_documents.ts";
import { codecFor } from "../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

const template = joinUrl(
  "https://api.test/v1",
  "/users/:id/posts/:post",
  false,
);
if (Array.isArray(template)) throw new Error("bad template");
const query = {
  include: ["author", "comments"],
  page: { size: 10, number: 2 },
  filter: { status: "open", createdAt: "2026" },
};
const snakeBody = {
  "user_name": "ada",
  "home_address": { "street_name": "x", "post_code": "y" },
  "tag_list": [{ "tag_id": 1 }, { "tag_id": 2 }],
};
const documentText = JSON.stringify(compoundDocument(1_000));

Deno.bench("parseEndpoint()", () => {
  parseEndpoint("GET /users/:id/posts/:post");
});

Deno.bench("fillUrl() with two params and a query", () => {
  fillUrl(template, { id: 7, post: "a b" }, "x=1");
});

Deno.bench("serialiseQuery() JSON:API with casing", () => {
  serialiseQuery(query, new URLSearchParams(), {
    format: "json-api",
    casing: "snake_case",
  }).toString();
});

Deno.bench("convertKeys() snake_case to camelCase", () => {
  convertKeys(snakeBody, "camelCase");
});

Deno.bench("denormalise() N = 1,000", (b) => {
  const document = JSON.parse(documentText);
  b.start();
  denormalise(document);
  b.end();
});

Deno.bench("denormalise() N = 1,000, camelCase", (b) => {
  const document = JSON.parse(documentText);
  b.start();
  denormalise(document, { casing: "camelCase" });
  b.end();
});
