import { assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { blobTypeOf } from "../src/media_type.ts";
import { startServer } from "./_server.ts";

/** `Content-Type` values as a server sends them, one header line each. */
const CASES: string[][] = [
  ["image/png"],
  ['Text/Plain; Charset="UTF-8"'],
  ["text/html ; charset=utf-8 ; q=1"],
  ["text/plain", "application/json"],
  ["text/plain;charset=utf-8", "text/plain"],
  ["text/plain;charset=utf-8", "text/html"],
  ["application/json", "*/*"],
  ["garbage"],
  ['garbage;;;"'],
  ["/plain"],
  ["text/"],
  ['text/plain; a="x,y"; b'],
  ['text/plain; a="q\\"uote"; a=second; =x; c='],
  ['text/plain; name="a b"'],
  ["text/ plain"],
  ["text/plain; a= b ; c=d"],
  ["a/b; x=\u00e9"],
];

/** The type the platform's `Response.blob()` gives for the same header. */
async function platformType(values: string[]): Promise<string> {
  const headers = new Headers();
  for (const value of values) headers.append("content-type", value);
  return (await new Response("x", { headers }).blob()).type;
}

Deno.test("blobTypeOf()", async (t) => {
  await t.step("types a blob as Response.blob() does", async () => {
    for (const values of CASES) {
      assertEquals(
        (new Blob([], { type: blobTypeOf(values.join(", ")) })).type,
        await platformType(values),
        values.join(" | "),
      );
    }
  });

  await t.step("a grab's blob has the same type", async () => {
    await using server = startServer((request) => {
      const at = Number(new URL(request.url).searchParams.get("case"));
      const headers = new Headers();
      for (const value of CASES[at]!) headers.append("content-type", value);
      return new Response("x", { headers });
    });
    const grab = createGrab(server.url, { retry: 0 });
    for (const [at, values] of CASES.entries()) {
      for (const maxBodyBytes of [Infinity, 10]) {
        const [blob, error] = await grab("GET /", {
          query: { case: at },
          responseType: "blob",
          maxBodyBytes,
        });
        assertEquals(error, null);
        assertEquals(
          blob?.type,
          await platformType(values),
          values.join(" | "),
        );
      }
    }
  });
});
