// deno-lint-ignore-file no-console
/**
 * Property-based tests with fast-check, seeded and with a fixed run count.
 *
 * `GRAB_FUZZ_RUNS` sets the runs per property (default 200, so the normal
 * test run stays quick); `deno task fuzz` runs 20,000. `GRAB_FUZZ_SEED`
 * replays another seed. Each property prints its run count and seed.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertNotMatch,
  assertNotStrictEquals,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import { fc } from "./_npm.ts";
import createGrab, { Call, GrabValidationError } from "../mod.ts";
import { type Casing, convertKey } from "../src/casing.ts";
import { convertKeys, KeyClash } from "../src/convert_keys.ts";
import { HTTP_METHODS, parseEndpoint } from "../src/endpoint.ts";
import type { HttpMethod } from "../src/endpoint.ts";
import { denormalise } from "../src/jsonapi/denormalise.ts";
import { serialise } from "../src/jsonapi/serialise.ts";
import { validateWrite } from "../src/jsonapi/validate.ts";
import { serialiseQuery } from "../src/query.ts";
import { startServer } from "./_server.ts";
import { codecFor } from "../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

const RUNS = positiveInteger(Deno.env.get("GRAB_FUZZ_RUNS"), 200);
const SEED = integer(Deno.env.get("GRAB_FUZZ_SEED"), 20_260_501);

function positiveInteger(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return text !== undefined && Number.isInteger(value) && value > 0
    ? value
    : fallback;
}

function integer(text: string | undefined, fallback: number): number {
  const value = Number(text);
  return text !== undefined && text !== "" && Number.isInteger(value)
    ? value
    : fallback;
}

const PARAMETERS = { seed: SEED, numRuns: RUNS };

function check<T>(name: string, property: fc.IProperty<T>): void {
  fc.assert(property, PARAMETERS);
  console.log(`fuzz: ${name}: ${RUNS} runs (seed ${SEED})`);
}

async function checkAsync<T>(
  name: string,
  property: fc.IAsyncProperty<T>,
): Promise<void> {
  await fc.assert(property, PARAMETERS);
  console.log(`fuzz: ${name}: ${RUNS} runs (seed ${SEED})`);
}

const CASINGS: readonly Casing[] = [
  "none",
  "camelCase",
  "snake_case",
  "kebab-case",
  "PascalCase",
];
const casingArb = fc.constantFrom(...CASINGS);

/** Either returns, or throws a GrabValidationError; anything else fails. */
function returnsOrRejects<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch (error) {
    assert(
      error instanceof GrabValidationError,
      `threw ${String(error)} instead of a GrabValidationError`,
    );
    assertEquals(error.name, "GrabValidationError");
    assert(error.issues.length > 0);
    return undefined;
  }
}

// Strings that look like endpoints, with odd spacing, methods and targets.
const spaceArb = fc.constantFrom("", " ", "  ", "\t", "\n", "\r\n", "\u00a0");
const methodArb = fc.oneof(
  fc.constantFrom(...HTTP_METHODS, "get", "Post", "FOO", "", "GET GET"),
  fc.string({ maxLength: 8 }),
);
const targetArb = fc.oneof(
  fc.constantFrom(
    "/",
    "//evil.test/x",
    "/users/:id",
    "/a/:b/:c?x=1#frag",
    "http://",
    "https://user:pass@api.test/x",
    "http://[::1]:80/x",
    "/%zz",
    "/a b",
    "relative",
    "javascript:alert(1)",
    "http://127.0.0.1:99999/",
  ),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.webPath(),
  fc.string(),
  fc.string({ unit: "binary" }),
);
const endpointArb = fc.oneof(
  fc.tuple(spaceArb, methodArb, spaceArb, targetArb, spaceArb).map((parts) =>
    parts.join("")
  ),
  fc.string(),
  fc.string({ unit: "binary" }),
);

Deno.test("parseEndpoint() (property)", () => {
  check(
    "parseEndpoint() returns or throws GrabValidationError",
    fc.property(endpointArb, (text) => {
      const parsed = returnsOrRejects(() => parseEndpoint(text));
      if (parsed === undefined) return;
      assert(HTTP_METHODS.has(parsed.method));
      assert(parsed.target.length > 0);
      assertNotMatch(parsed.target, /\s/);
      assertStrictEquals(
        parsed.absolute,
        /^https?:\/\//.test(parsed.target),
      );
      assert(parsed.absolute || parsed.target.startsWith("/"));
    }),
  );
  check(
    "parseEndpoint() on any value throws only GrabValidationError",
    fc.property(fc.anything(), (value) => {
      returnsOrRejects(() => parseEndpoint(value));
    }),
  );
});

Deno.test("new Call() (property)", () => {
  const baseArb = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      "http://127.0.0.1:1",
      "https://api.test/v1/",
      "https://api.test/v1//",
      "ftp://files.test/",
      "http://user:pass@api.test/",
      "",
      "not a url",
      "http://[::1]/",
    ),
    fc.webUrl(),
    fc.string(),
  );
  check(
    "new Call() returns or throws GrabValidationError",
    fc.property(endpointArb, baseArb, (endpoint, base) => {
      const call = returnsOrRejects(() => new Call(endpoint, base));
      if (call === undefined) return;
      assert(
        call.url.protocol === "http:" || call.url.protocol === "https:",
      );
      assertEquals(call.url.username, "");
      assertEquals(call.url.password, "");
      assert(call.method !== "CONNECT" && call.method !== "TRACE");
    }),
  );
});

// NaN and the infinities are refused (a test of their own covers them).
const finiteArb = fc.double({ noNaN: true, noDefaultInfinity: true });
const queryScalarArb = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.integer(),
  finiteArb,
);
const queryKeyArb = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.constantFrom("__proto__", "constructor", "a[b]", "page", "1", "&", "="),
);

Deno.test("serialiseQuery() (property)", () => {
  const roundTrip = (
    params: URLSearchParams,
  ) => [...new URLSearchParams(params.toString())];

  check(
    "serialiseQuery() JSON mode round-trips with repeated keys",
    fc.property(
      fc.dictionary(
        queryKeyArb,
        fc.oneof(queryScalarArb, fc.array(queryScalarArb, { maxLength: 5 })),
        { maxKeys: 6 },
      ),
      (query) => {
        const expected: [string, string][] = [];
        for (const key of Object.keys(query)) {
          const value = query[key];
          for (const item of Array.isArray(value) ? value : [value]) {
            expected.push([key, String(item)]);
          }
        }
        const params = serialiseQuery(query, new URLSearchParams(), {
          format: "json",
        });
        assertEquals(roundTrip(params), expected);
      },
    ),
  );

  const noCommaArb = fc.oneof(
    fc.string({ unit: "binary" }).filter((text) => !text.includes(",")),
    fc.integer(),
    finiteArb,
  );
  check(
    "serialiseQuery() JSON:API mode round-trips with comma-joined arrays",
    fc.property(
      fc.dictionary(
        queryKeyArb,
        fc.oneof(queryScalarArb, fc.array(noCommaArb, { maxLength: 5 })),
        { maxKeys: 6 },
      ),
      (query) => {
        const expected: [string, string][] = [];
        for (const key of Object.keys(query)) {
          const value = query[key];
          // An empty list is an empty value: JSON:API reads it as none.
          if (!Array.isArray(value)) expected.push([key, String(value)]);
          else expected.push([key, value.map(String).join(",")]);
        }
        const params = serialiseQuery(query, new URLSearchParams(), {
          format: "json-api",
        });
        const entries = roundTrip(params);
        assertEquals(entries, expected);
        for (const [key, text] of entries) {
          const value = query[key];
          if (Array.isArray(value) && value.length > 0) {
            assertEquals(text.split(","), value.map(String));
          }
        }
      },
    ),
  );
});

// Keys chosen to collide once cased ("a_b", "aB", "a-b" all become "aB").
const casingKeyArb = fc.oneof(
  fc.constantFrom(
    "a_b",
    "aB",
    "a-b",
    "AB",
    "Ab",
    "a__b",
    "__proto__",
    "constructor",
    "prototype",
    "userID",
    "user_i_d",
    "user-id",
    "UserId",
    "x1",
    "x_1",
    "X1",
    "",
    "$ref",
    "@id",
  ),
  fc.string(),
  fc.string({ unit: "binary", maxLength: 6 }),
);
const casingLeafArb = fc.oneof(
  fc.string(),
  casingKeyArb,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.date(),
);
const { tree: casingTreeArb } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    casingLeafArb,
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("tree"), { maxLength: 4 }),
  object: fc.dictionary(casingKeyArb, tie("tree"), { maxKeys: 5 }),
}));

function isContainer(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The objects in `value` (a tree, no cycles) with two keys that `casing` makes one. */
function clashingObjects(value: unknown, casing: Casing): object[] {
  const found: object[] = [];
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (!isContainer(current)) continue;
    const items = Object.values(current);
    stack.push(...items);
    if (Array.isArray(current)) continue;
    const keys = Object.keys(current);
    const cased = new Set(keys.map((key) => convertKey(key, casing)));
    if (cased.size < keys.length) found.push(current);
  }
  return found;
}

/** The value at JSON pointer `at` in `value`. */
function atPointer(value: unknown, at: string): unknown {
  if (at === "") return value;
  return at.slice(1).split("/").reduce<unknown>(
    (node, token) =>
      (node as Record<string, unknown>)[
        token.replaceAll("~1", "/").replaceAll("~0", "~")
      ],
    value,
  );
}

/**
 * Checks that `out` is `source` with keys cased: the same leaves (by
 * identity), arrays of the same length, and for each object one key per
 * distinct cased key, holding the value of the last source key that maps to
 * it.
 */
function assertKeysOnly(source: unknown, out: unknown, casing: Casing): void {
  if (!isContainer(source)) {
    assert(Object.is(source, out), "a leaf value was changed");
    return;
  }
  assertNotStrictEquals(out, source, "a container was not copied");
  if (Array.isArray(source)) {
    assert(Array.isArray(out));
    assertStrictEquals(out.length, source.length);
    source.forEach((item, i) => assertKeysOnly(item, out[i], casing));
    return;
  }
  assert(isContainer(out) && !Array.isArray(out));
  assertStrictEquals(Object.getPrototypeOf(out), Object.prototype);
  const from = new Map<string, string>();
  const sourceKeys = Object.keys(source);
  for (const key of sourceKeys) from.set(convertKey(key, casing), key);
  const outKeys = Object.keys(out);
  assertEquals(new Set(outKeys), new Set(from.keys()));
  assertStrictEquals(outKeys.length, from.size);
  // Without a collision, no key is lost.
  assertStrictEquals(
    outKeys.length === sourceKeys.length,
    from.size === sourceKeys.length,
  );
  for (const [to, key] of from) {
    assert(Object.hasOwn(out, to));
    assertKeysOnly(
      (source as Record<string, unknown>)[key],
      (out as Record<string, unknown>)[to],
      casing,
    );
  }
}

Deno.test("convertKey() and convertKeys() (property)", () => {
  check(
    "convertKey() is idempotent",
    fc.property(casingKeyArb, casingArb, (key, casing) => {
      const once = convertKey(key, casing);
      assertStrictEquals(convertKey(once, casing), once);
      if (key === "__proto__") assertStrictEquals(once, key);
    }),
  );
  check(
    "convertKey() camelCase keys round-trip through snake_case and kebab-case",
    fc.property(
      fc.stringMatching(/^[a-z][a-z0-9]{0,5}(?:[A-Z][a-z0-9]{0,5}){0,3}$/),
      fc.constantFrom<Casing>("snake_case", "kebab-case"),
      (key, wire) => {
        assertStrictEquals(convertKey(convertKey(key, wire), "camelCase"), key);
      },
    ),
  );
  check(
    "convertKeys() changes keys only, or throws KeyClash for two keys that become one",
    fc.property(casingTreeArb, casingArb, (value, casing) => {
      const before = JSON.stringify(value);
      const clashing = casing === "none" ? [] : clashingObjects(value, casing);
      let out: unknown;
      let clash: unknown;
      try {
        out = convertKeys(value, casing);
      } catch (error) {
        clash = error;
      }
      assertStrictEquals(
        JSON.stringify(value),
        before,
        "the input was mutated",
      );
      if (clashing.length > 0) {
        assert(clash instanceof KeyClash, String(clash));
        const holder = atPointer(value, clash.at);
        assert(clashing.includes(holder as object), clash.at);
        const [first, second] = clash.keys;
        assert(first !== second && Object.hasOwn(holder as object, first));
        assert(Object.hasOwn(holder as object, second));
        assertStrictEquals(
          convertKey(first, casing),
          convertKey(second, casing),
        );
      } else {
        assertStrictEquals(clash, undefined);
        if (casing === "none") assertStrictEquals(out, value);
        else assertKeysOnly(value, out, casing);
      }
    }),
  );
  check(
    "convertKeys() is idempotent",
    fc.property(casingTreeArb, casingArb, (value, casing) => {
      fc.pre(casing === "none" || clashingObjects(value, casing).length === 0);
      const once = convertKeys(value, casing);
      assertEquals(convertKeys(once, casing), once);
    }),
  );
});

// JSON:API-shaped documents: few types and ids, so repeats and cycles are common.
const TYPES = ["a", "b", "c"] as const;
const IDS = ["1", "2", "3", "4"] as const;
const RELATIONSHIPS = ["r0", "r1", "r2", "r3"] as const;
const identifierArb = fc.record({
  type: fc.constantFrom(...TYPES),
  id: fc.constantFrom(...IDS),
});
const linkageArb = fc.oneof(
  fc.constant(null),
  identifierArb,
  fc.array(identifierArb, { maxLength: 4 }),
);
const attributesArb = fc.dictionary(
  fc.constantFrom(
    "title",
    "first_name",
    "firstName",
    "__proto__",
    "constructor",
    "prototype",
    "x-y",
    "a b",
    "",
  ),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 4 },
);
const relationshipsArb = fc.dictionary(
  fc.constantFrom(...RELATIONSHIPS),
  fc.record(
    { data: linkageArb, meta: fc.constant({ n: 1 }), links: fc.constant({}) },
    { requiredKeys: [] },
  ),
  { maxKeys: 4 },
);
const resourceArb = fc.record(
  {
    type: fc.constantFrom(...TYPES),
    id: fc.constantFrom(...IDS),
    attributes: attributesArb,
    relationships: relationshipsArb,
    meta: fc.constant({ m: true }),
  },
  { requiredKeys: ["type", "id"] },
);
const documentArb = fc.record(
  {
    data: fc.oneof(
      resourceArb,
      fc.array(resourceArb, { maxLength: 4 }),
      fc.constant(null),
    ),
    included: fc.array(resourceArb, { maxLength: 6 }),
    meta: fc.constant({ total: 1 }),
    links: fc.constant({ self: "/x" }),
  },
  { requiredKeys: ["data"] },
);
// The same shape with any JSON in any member, for documents that are broken.
const looseArb = fc.record(
  {
    data: fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.array(
        fc.record({
          type: fc.oneof(fc.constantFrom(...TYPES), fc.jsonValue()),
          id: fc.oneof(fc.constantFrom(...IDS), fc.jsonValue()),
          lid: fc.jsonValue({ maxDepth: 1 }),
          attributes: fc.jsonValue({ maxDepth: 2 }),
          relationships: fc.oneof(
            relationshipsArb,
            fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
          ),
        }, { requiredKeys: [] }),
      ),
    ),
    included: fc.jsonValue({ maxDepth: 3 }),
    meta: fc.jsonValue({ maxDepth: 1 }),
    links: fc.jsonValue({ maxDepth: 1 }),
    errors: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

function assertOutcome(result: unknown): void {
  assert(typeof result === "object" && result !== null);
  const { ok } = result as { ok: unknown };
  assertEquals(typeof ok, "boolean");
  if (!ok) {
    assertEquals(typeof (result as { reason: unknown }).reason, "string");
  }
}

/** One flat object per type + id, reached through data and relationships. */
function assertSharedIdentity(data: unknown, casing: Casing): void {
  const names = RELATIONSHIPS.map((name) => convertKey(name, casing));
  const byKey = new Map<string, object>();
  const seen = new Set<object>();
  const stack: unknown[] = Array.isArray(data) ? [...data] : [data];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    if (seen.has(value)) continue;
    seen.add(value);
    const resource = value as Record<string, unknown>;
    const key = `${resource.type}\0${resource.id}`;
    const known = byKey.get(key);
    if (known !== undefined) {
      assertStrictEquals(value, known, `two objects for ${key}`);
    }
    byKey.set(key, value);
    for (const name of names) {
      if (Object.hasOwn(resource, name)) stack.push(resource[name]);
    }
  }
}

Deno.test("denormalise() (property)", () => {
  check(
    "denormalise() on any JSON value never throws",
    fc.property(fc.jsonValue(), casingArb, (value, casing) => {
      assertOutcome(denormalise(value, { casing }));
    }),
  );
  check(
    "denormalise() on any JSON text never throws",
    fc.property(fc.json(), casingArb, (text, casing) => {
      assertOutcome(denormalise(JSON.parse(text), { casing }));
    }),
  );
  check(
    "denormalise() on broken JSON:API documents never throws",
    fc.property(looseArb, casingArb, (document, casing) => {
      assertOutcome(denormalise(document, { casing }));
    }),
  );
  check(
    "denormalise() on JSON:API documents succeeds with shared identity",
    fc.property(documentArb, casingArb, (document, casing) => {
      const result = denormalise(document, { casing });
      if (!result.ok) {
        // Only two names that the casing makes one fail the document.
        assert(result.clash, result.reason);
        const [, first, second] = /keys "([^"]*)" and "([^"]*)"/.exec(
          result.reason,
        )!;
        assert(first !== second);
        assertStrictEquals(
          convertKey(first!, casing),
          convertKey(second!, casing),
        );
        return;
      }
      if (Array.isArray(document.data)) {
        assert(Array.isArray(result.data));
        assertStrictEquals(result.data.length, document.data.length);
      } else if (document.data === null) {
        assertStrictEquals(result.data, null);
      }
      assertSharedIdentity(result.data, casing);
      assertEquals(result.meta, document.meta);
      assertEquals(result.links, document.links);
    }),
  );
});

// Write bodies: flat, wire-shape and whole documents, valid or not.
const fieldKeyArb = fc.oneof(
  fc.constantFrom(
    "title",
    "first_name",
    "firstName",
    "body text",
    "__proto__",
    "relationships",
    "links",
    "type",
    "a/b",
    "~x",
    "",
    "author",
  ),
  fc.string({ maxLength: 6 }),
);
const fieldValueArb = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  fc.constant(Number.NaN),
  fc.constant(Number.POSITIVE_INFINITY),
  fc.bigInt(),
  fc.constant(undefined),
  identifierArb,
  fc.array(identifierArb, { maxLength: 3 }),
  fc.record({ type: fc.constant("a"), id: fc.integer() }),
);
const headArb = fc.record(
  {
    type: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom("articles", "people") },
      fc.constant(""),
      fc.integer(),
    ),
    id: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("1", "2") },
      fc.integer(),
      fc.constant(Number.NaN),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  },
  { requiredKeys: [] },
);
const flatArb = fc.tuple(
  fc.dictionary(fieldKeyArb, fieldValueArb, { maxKeys: 4 }),
  headArb,
).map(([fields, head]) => ({ ...fields, ...head }));
const wireArb = fc.tuple(
  headArb,
  fc.dictionary(fieldKeyArb, fieldValueArb, { maxKeys: 3 }),
  fc.dictionary(
    fieldKeyArb,
    fc.oneof(linkageArb, fc.record({ data: linkageArb }), fc.jsonValue()),
    { maxKeys: 3 },
  ),
).map(([head, attributes, relationships]) => ({
  ...head,
  attributes,
  relationships,
}));
const writeBodyArb = fc.oneof(
  { weight: 4, arbitrary: flatArb },
  { weight: 2, arbitrary: wireArb },
  fc.record({ data: fc.oneof(wireArb, fc.array(identifierArb)) }),
  fc.jsonValue().filter((value) => value !== null && typeof value !== "string"),
);

Deno.test("createGrab() JSON:API write validation (property)", async () => {
  await using server = startServer(() => new Response(null, { status: 204 }));
  let valid = 0;
  await checkAsync(
    "a JSON:API body with issues rejects before sending; a valid one is sent once",
    fc.asyncProperty(
      writeBodyArb,
      fc.constantFrom<HttpMethod>("POST", "PATCH", "PUT"),
      casingArb,
      casingArb,
      async (body, method, casing, wireCasing) => {
        const grab = createGrab(server.url, {
          format: "json-api",
          casing,
          wireCasing,
          retry: 0,
          timeout: 10_000,
        });
        const issues = validateWrite(body, { method, casing, wireCasing });
        const before = server.requests.length;
        const sending = grab(`${method} /resources` as const, { body });
        if (issues.length > 0) {
          const error = await assertRejects(
            () => sending,
            GrabValidationError,
          );
          assertEquals(error.issues, issues);
          assertStrictEquals(server.requests.length, before);
          return;
        }
        valid++;
        const [data, error, meta] = await sending;
        assertStrictEquals(error, null);
        assertStrictEquals(data, null);
        assertEquals(meta.statusCode, 204);
        assertStrictEquals(server.requests.length, before + 1);
        const seen = server.requests.at(-1)!;
        assertStrictEquals(seen.method, method);
        assertStrictEquals(
          seen.body,
          JSON.stringify(serialise(body, { casing, wireCasing })),
        );
        assertEquals(
          seen.headers.get("content-type"),
          "application/vnd.api+json",
        );
      },
    ),
  );
  console.log(`fuzz: ${valid} of ${RUNS} random bodies were valid and sent`);
  assert(valid > 0, "the generator never made a valid body");
});
