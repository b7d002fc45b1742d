import assert from "node:assert/strict";
import {
  GrabError,
  GrabTransportError,
  GrabValidationError,
  isGrabHttpError,
  isGrabTransportError,
  isGrabValidationError,
  orThrow,
} from "../mod.ts";
import { httpErrorMessage, safeUrl } from "../src/errors.ts";
import { json, startServer } from "./_server.ts";

function httpError(): GrabError {
  return new GrabError("boom", {
    statusCode: 418,
    body: null,
    headers: new Headers(),
    method: "GET",
    url: "https://api.test/x",
  });
}

Deno.test("GrabError, GrabTransportError, GrabValidationError", async (t) => {
  await t.step("extend Error and carry their names and fields", () => {
    const cause = new TypeError("socket");
    const http = httpError();
    const transport = new GrabTransportError("t", {
      kind: "network",
      method: "POST",
      url: "https://api.test/y",
      cause,
    });
    const validation = new GrabValidationError("v", [{
      path: "",
      message: "m",
    }]);
    for (const error of [http, transport, validation]) {
      assert.ok(error instanceof Error);
    }
    assert.equal(http.name, "GrabError");
    assert.equal(http.statusCode, 418);
    assert.equal(http.cause, undefined);
    assert.equal(transport.name, "GrabTransportError");
    assert.equal(transport.kind, "network");
    assert.equal(transport.cause, cause);
    assert.equal("issues" in transport, false);
    assert.equal(validation.name, "GrabValidationError");
    assert.deepEqual(validation.issues, [{ path: "", message: "m" }]);
    assert.equal(String(http), "GrabError: boom");
  });

  await t.step("safeUrl drops userinfo, query and fragment", () => {
    assert.equal(
      safeUrl("https://u:p@api.test:8443/a/b?token=x#f"),
      "https://api.test:8443/a/b",
    );
    assert.equal(safeUrl("not a url"), "<invalid URL>");
  });

  await t.step("httpErrorMessage follows the contract", () => {
    assert.equal(
      httpErrorMessage(404, "Not Found", "GET", "https://a.test/x"),
      "404 Not Found: GET https://a.test/x",
    );
    assert.equal(
      httpErrorMessage(599, "", "PUT", "https://a.test/x"),
      "599: PUT https://a.test/x",
    );
  });
});

Deno.test("isGrabHttpError(), isGrabTransportError(), isGrabValidationError()", async (t) => {
  await t.step("recognise real instances", () => {
    assert.equal(isGrabHttpError(httpError()), true);
    assert.equal(
      isGrabTransportError(
        new GrabTransportError("t", { kind: "abort", method: "GET", url: "" }),
      ),
      true,
    );
    assert.equal(isGrabValidationError(new GrabValidationError("v", [])), true);
  });

  await t.step("recognise look-alikes from another copy of the module", () => {
    assert.equal(isGrabHttpError({ name: "GrabError", statusCode: 500 }), true);
    assert.equal(isGrabTransportError({ name: "GrabTransportError" }), true);
    assert.equal(isGrabValidationError({ name: "GrabValidationError" }), true);
  });

  await t.step("refuse everything else", () => {
    for (const value of [null, undefined, 0, "GrabError", new Error("x"), {}]) {
      assert.equal(isGrabHttpError(value), false);
      assert.equal(isGrabTransportError(value), false);
      assert.equal(isGrabValidationError(value), false);
    }
    assert.equal(
      isGrabHttpError({ name: "GrabError", statusCode: "500" }),
      false,
    );
    assert.equal(
      isGrabHttpError({ name: "GrabTransportError", statusCode: 0 }),
      false,
    );
  });
});

Deno.test("orThrow()", async (t) => {
  await using server = startServer({
    "/ok": () => json({ a: 1 }),
    "/gone": () => json({ gone: true }, { status: 410 }),
  });
  const { default: createGrab } = await import("../mod.ts");
  const grab = createGrab(server.url, { retry: 0 });

  await t.step("resolves [data, meta] on success", async () => {
    const [data, meta] = await orThrow(grab("GET /ok"));
    assert.deepEqual(data, { a: 1 });
    assert.equal(meta.statusCode, 200);
  });

  await t.step("rejects with the GrabError", async () => {
    await assert.rejects(orThrow(grab("GET /gone")), (error: unknown) => {
      assert.ok(error instanceof GrabError);
      assert.equal(error.statusCode, 410);
      return true;
    });
  });

  await t.step("rejects with the GrabTransportError", async () => {
    await assert.rejects(
      orThrow(grab("GET /ok", { signal: AbortSignal.abort() })),
      (error: unknown) => isGrabTransportError(error) && error.kind === "abort",
    );
  });

  await t.step("passes a validation rejection through", async () => {
    await assert.rejects(
      orThrow(grab("GET /x/:id", { params: {} } as { params: { id: string } })),
      GrabValidationError,
    );
  });
});
