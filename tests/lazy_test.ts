import { assertEquals, assertRejects, assertStrictEquals } from "@std/assert";
import { lazy } from "../src/lazy.ts";

Deno.test("lazy() loads once and tries again after a failure", async (t) => {
  await t.step("every call after the first gets the same promise", async () => {
    let loads = 0;
    const load = lazy(() => Promise.resolve(++loads));
    const first = load();
    assertStrictEquals(load(), first);
    assertEquals(await first, 1);
    assertEquals(await load(), 1);
    assertEquals(loads, 1);
  });

  await t.step(
    "a failed load is not kept: the next call loads again",
    async () => {
      let loads = 0;
      const load = lazy(() =>
        ++loads === 1
          ? Promise.reject(new TypeError("chunk not fetched"))
          : Promise.resolve("module")
      );
      await assertRejects(() => load(), TypeError, "chunk not fetched");
      assertEquals(await load(), "module");
      assertEquals(await load(), "module");
      assertEquals(loads, 2);
    },
  );
});
