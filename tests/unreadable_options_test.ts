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

Deno.test("a signal whose state cannot be read is a validation error, before any request", async () => {
  // A Worker's signal made while handling another request: workerd throws
  // "Cannot perform I/O on behalf of a different request" when it is read,
  // which would otherwise escape the grab as a plain Error.
  await using server = startServer(() => json({}));
  const refused = new Error(
    "Cannot perform I/O on behalf of a different request",
  );
  const signal = new AbortController().signal;
  Object.defineProperty(signal, "aborted", {
    get() {
      throw refused;
    },
  });
  const grab = createGrab(server.url);
  const error = await assertValidation(
    () => grab("GET /users", { signal, timeout: 1_000 }),
    "signal",
  );
  assert(error.message.includes("different request"), error.message);
  assert(error.message.includes("one made while handling it"), error.message);
  assertEquals(error.cause, refused);
  assertEquals(server.requests.length, 0);
});
