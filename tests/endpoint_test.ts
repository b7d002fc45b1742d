import {
  assert,
  assertEquals,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import { GrabValidationError } from "../mod.ts";
import { parseEndpoint } from "../src/endpoint.ts";

Deno.test("parseEndpoint()", async (t) => {
  const good: [string, string, string, boolean][] = [
    ["GET /users", "GET", "/users", false],
    ["  PATCH\t/users/:id  ", "PATCH", "/users/:id", false],
    ["DELETE https://api.test/x?y=1", "DELETE", "https://api.test/x?y=1", true],
    ["HEAD http://localhost:8080/", "HEAD", "http://localhost:8080/", true],
    ["OPTIONS /", "OPTIONS", "/", false],
    ["CONNECT /tunnel", "CONNECT", "/tunnel", false],
  ];
  for (const [text, method, target, absolute] of good) {
    await t.step(`parses ${JSON.stringify(text)}`, () => {
      assertEquals(parseEndpoint(text), { method, target, absolute });
    });
  }

  const bad: [unknown, string][] = [
    [
      "",
      'Cannot parse the endpoint: expected "<METHOD> <target>" such as "GET /users"',
    ],
    [
      "GET",
      'Cannot parse the endpoint: expected "<METHOD> <target>" such as "GET /users"',
    ],
    [
      "GET /a /b",
      'Cannot use the target: it holds white space, which ends a target; percent-encode it (%20) or give the value in "params" or "query"',
    ],
    [
      "get /a",
      'Cannot use the method "get": methods are upper case, write "GET"',
    ],
    [
      "Post /a",
      'Cannot use the method "Post": methods are upper case, write "POST"',
    ],
    [
      "PURGE /a",
      'Cannot use the method "PURGE": use GET, HEAD, POST, PUT, DELETE, OPTIONS or PATCH',
    ],
    [
      "GET a/b",
      'Cannot use the target: expected an absolute "http://" or "https://" URL or a path starting with "/"',
    ],
    [
      "GET ftp://x/y",
      'Cannot use the target: expected an absolute "http://" or "https://" URL or a path starting with "/"',
    ],
    [
      "GET HTTPS://x/y",
      'Cannot use the target: expected an absolute "http://" or "https://" URL or a path starting with "/"',
    ],
    [
      "GET /files/report\0",
      'Cannot use the target: it holds the control character U+0000; percent-encode it (%00) or give it in "params" or "query"',
    ],
    [
      "GET /files/caf\uD83D",
      "Cannot use the target: it holds a lone surrogate, which is not Unicode text and would go as U+FFFD",
    ],
    [
      "GET https://api.test/?q=a\x1f",
      'Cannot use the target: it holds the control character U+001F; percent-encode it (%1F) or give it in "params" or "query"',
    ],
    [
      "GET /search?q=hello world",
      'Cannot use the target: it holds white space, which ends a target; percent-encode it (%20) or give the value in "params" or "query"',
    ],
    [
      "post\t/notes/a b\u00a0c ",
      'Cannot use the target: it holds white space, which ends a target; percent-encode it (%20) or give the value in "params" or "query"',
    ],
    [
      // A tab or a no-break space is not a space: each is encoded as it is.
      "GET /search?q=a\tb",
      'Cannot use the target: it holds white space (U+0009), which ends a target; percent-encode it (%09) or give the value in "params" or "query"',
    ],
    [
      "GET /notes/a\u00a0b",
      'Cannot use the target: it holds white space (U+00A0), which ends a target; percent-encode it (%C2%A0) or give the value in "params" or "query"',
    ],
    [
      "fetch the users now",
      'Cannot parse the endpoint: expected "<METHOD> <target>" such as "GET /users"',
    ],
    [
      42,
      'Cannot parse the endpoint: expected a string such as "GET /users", got number',
    ],
  ];
  for (const [text, message] of bad) {
    await t.step(`rejects ${JSON.stringify(text)}`, () => {
      const error = assertThrows(
        () => parseEndpoint(text),
        GrabValidationError,
      );
      assertEquals(error.issues, [{ path: "", message }]);
      assertStrictEquals(error.message, message);
    });
  }

  await t.step("never repeats the target, which may hold a token", () => {
    const error = assertThrows(
      () => parseEndpoint("get /x?token=s3cret"),
      Error,
    );
    assert(!error.message.includes("s3cret"));
  });
});
