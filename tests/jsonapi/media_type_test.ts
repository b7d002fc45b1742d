import assert from "node:assert/strict";
import { JSONAPI_MEDIA_TYPE, mediaType } from "../../src/jsonapi/media_type.ts";

Deno.test("mediaType()", async (t) => {
  await t.step("gives the bare media type without parameters", () => {
    assert.equal(JSONAPI_MEDIA_TYPE, "application/vnd.api+json");
    assert.equal(mediaType(), "application/vnd.api+json");
    assert.equal(
      mediaType({ ext: [], profile: [] }),
      "application/vnd.api+json",
    );
  });

  await t.step("adds ext and profile as quoted, space-separated URIs", () => {
    assert.equal(
      mediaType({ ext: ["https://jsonapi.org/ext/atomic"] }),
      'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"',
    );
    assert.equal(
      mediaType({
        ext: ["https://a.test/x", "https://b.test/y"],
        profile: ["https://c.test/p"],
      }),
      'application/vnd.api+json; ext="https://a.test/x https://b.test/y"; profile="https://c.test/p"',
    );
    assert.equal(
      mediaType({ profile: ["https://c.test/p"] }),
      'application/vnd.api+json; profile="https://c.test/p"',
    );
  });

  await t.step(
    "escapes quotes and backslashes inside the quoted string",
    () => {
      assert.equal(
        mediaType({ ext: ['https://a.test/"x\\'] }),
        'application/vnd.api+json; ext="https://a.test/\\"x\\\\"',
      );
    },
  );
});
