import { assertEquals, assertStrictEquals } from "@std/assert";
import {
  addLid,
  createIndex,
  idsOf,
  keysOf,
  newResource,
  resolveLinkage,
} from "../../src/jsonapi/resource_index.ts";
import { codecFor } from "../../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

Deno.test("idsOf() gives each type its one map, whatever came between", () => {
  const index = createIndex("none");
  const people = idsOf(index, "people");
  const tags = idsOf(index, "tags");
  assertStrictEquals(idsOf(index, "people"), people);
  assertStrictEquals(idsOf(index, "tags"), tags);
  assertStrictEquals(index.byId.get("people"), people);
  assertStrictEquals(keysOf(index.byId, "tags"), tags);
});

Deno.test("addLid() keeps the first object with a lid", () => {
  const index = createIndex("none");
  const first = newResource("people", "1", undefined);
  const second = newResource("people", "2", undefined);
  addLid(index, "people", "p", first);
  addLid(index, "people", "p", second);
  assertStrictEquals(index.byLid.get("people")?.get("p"), first);
});

Deno.test("resolveLinkage()", async (t) => {
  await t.step("finds indexed resources by id, then by lid", () => {
    const index = createIndex("none");
    const ada = newResource("people", "1", "ada");
    idsOf(index, "people").set("1", ada);
    keysOf(index.byLid, "people").set("ada", ada);
    assertStrictEquals(
      resolveLinkage(index, { type: "people", id: "1" }),
      ada,
    );
    assertStrictEquals(
      resolveLinkage(index, { type: "people", lid: "ada" }),
      ada,
    );
    assertEquals(resolveLinkage(index, [{ type: "people", id: "1" }]), [ada]);
    assertStrictEquals(resolveLinkage(index, null), null);
  });

  await t.step("adds one identifier-only object per identifier", () => {
    const index = createIndex("none");
    const first = resolveLinkage(index, { type: "tags", id: "2" });
    assertEquals(first, { type: "tags", id: "2" });
    assertStrictEquals(resolveLinkage(index, { type: "tags", id: "2" }), first);
  });

  await t.step("says which part is not linkage", () => {
    const index = createIndex("none");
    assertEquals(
      resolveLinkage(index, 5),
      " is not a resource identifier, an array or null",
    );
    assertEquals(
      resolveLinkage(index, [{ type: "a", id: "1" }, { type: "a" }]),
      "/1 is not a resource identifier",
    );
  });
});
