import { assertEquals } from "@std/assert";
import { JSONAPI_MEDIA_TYPE, mediaType } from "../../src/jsonapi/media_type.ts";

Deno.test("mediaType()", async (t) => {
  await t.step("gives the bare media type without parameters", () => {
    assertEquals(JSONAPI_MEDIA_TYPE, "application/vnd.api+json");
    assertEquals(mediaType(), "application/vnd.api+json");
    assertEquals(
      mediaType({ ext: [], profile: [] }),
      "application/vnd.api+json",
    );
  });

  await t.step("adds ext and profile as quoted, space-separated URIs", () => {
    assertEquals(
      mediaType({ ext: ["https://jsonapi.org/ext/atomic"] }),
      'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
    );
    assertEquals(
      mediaType({
        ext: ["https://a.test/x", "https://b.test/y"],
        profile: ["https://c.test/p"],
      }),
      'application/vnd.api+json; ext="https://a.test/x https://b.test/y"; profile="https://c.test/p"',
    );
    assertEquals(
      mediaType({ profile: ["https://c.test/p"] }),
      'application/vnd.api+json; profile="https://c.test/p"',
    );
  });

  await t.step(
    "escapes quotes and backslashes inside the quoted string",
    () => {
      assertEquals(
        mediaType({ ext: ['https://a.test/"x\\'] }),
        'application/vnd.api+json; ext="https://a.test/\\"x\\\\"',
      );
    },
  );
});
