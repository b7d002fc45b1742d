import { assert, assertEquals, assertFalse } from "@std/assert";
import createGrab, {
  isGrabHttpError,
  isGrabTransportError,
  isGrabValidationError,
} from "../mod.ts";
import { assertValidation, settles } from "./_bounds.ts";
import { json, startServer } from "./_server.ts";

Deno.test("a header function's result is held to what the headers option takes", async (t) => {
  await using server = startServer(() => json({}));
  const grabWith = (result: unknown) =>
    createGrab(server.url, { headers: () => result as HeadersInit });

  await t.step("a string is one problem, not one per character", async () => {
    const token = "x".repeat(5_000);
    const error = await assertValidation(() => grabWith(token)("GET /"));
    assertEquals(error.issues.length, 1);
    assert(error.message.length < 500, "the message stays short");
  });

  await t.step(
    "a number, boolean or function is refused, not sent as no headers",
    async () => {
      for (const result of [7, true, () => ({ authorization: "t" })]) {
        const error = await assertValidation(() => grabWith(result)("GET /"));
        assertEquals(error.issues.length, 1);
      }
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step("one error's issue cannot be changed for the next", async () => {
    const first = await assertValidation(() => grabWith("x")("GET /"));
    const message = first.issues[0]!.message;
    try {
      first.issues[0]!.message = "changed";
    } catch {
      // Frozen: the issue is shared by every such error.
    }
    const second = await assertValidation(() => grabWith("x")("GET /"));
    assertEquals(second.issues[0]!.message, message);
  });

  await t.step("null and undefined still mean none", async () => {
    for (const result of [null, undefined]) {
      const [, error] = await settles(grabWith(result)("GET /"));
      assertEquals(error, null);
    }
  });
});

Deno.test("the guards answer false, never throw, for a value that cannot be read", () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const throwing = new Proxy({}, {
    get() {
      throw new Error("trap");
    },
  });
  const getters = {
    get name(): string {
      throw new Error("name");
    },
  };
  const statusGetter = {
    name: "GrabError",
    get statusCode(): number {
      throw new Error("statusCode");
    },
  };
  for (const value of [proxy, throwing, getters, statusGetter]) {
    assertFalse(isGrabHttpError(value));
    assertFalse(isGrabTransportError(value));
    assertFalse(isGrabValidationError(value));
  }
});
