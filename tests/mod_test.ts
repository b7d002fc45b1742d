import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import * as mod from "../mod.ts";

Deno.test("mod.ts exports exactly the contract's values", () => {
  assertEquals(Object.keys(mod).sort(), [
    "Call",
    "GrabError",
    "GrabTransportError",
    "GrabValidationError",
    "createGrab",
    "default",
    "isGrabHttpError",
    "isGrabTransportError",
    "isGrabValidationError",
    "jsonApiOf",
    "orThrow",
    "paginate",
  ]);
  assertStrictEquals(mod.default, mod.createGrab);
  for (
    const name of [
      "Call",
      "GrabError",
      "GrabTransportError",
      "GrabValidationError",
    ] as const
  ) {
    assertEquals(typeof mod[name], "function");
    assert(mod[name].prototype, `${name} is a class`);
  }
});

Deno.test("src/ uses no Deno namespace and imports nothing remote", async () => {
  const offenders: string[] = [];
  const files: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) files.push(url.pathname);
    }
  };
  await walk(new URL("../src/", import.meta.url));
  assert(files.length > 10);
  for (
    const file of [...files, new URL("../mod.ts", import.meta.url).pathname]
  ) {
    const text = await Deno.readTextFile(file);
    // Code only: comments may name Deno's API, and the name of a registered
    // symbol (`Symbol.for("Deno.customInspect")`) is a string, not the
    // namespace.
    const code = text
      .replace(/^\s*(?:\/\/|\/?\*).*$/gm, "")
      .replaceAll('Symbol.for("Deno.customInspect")', "");
    if (/\bDeno\./.test(code)) offenders.push(`${file}: Deno.*`);
    if (/from\s+["'](?:npm:|jsr:|https?:)/.test(text)) {
      offenders.push(`${file}: remote import`);
    }
  }
  assertEquals(offenders, []);
});

Deno.test("every @default in src/ is one {value} that deno doc reads whole", async () => {
  // deno doc (and so JSR's pages) ends a `@default {…}` value at its first
  // `}`: `{{}}` shows as `{`, so a value may hold no brace of its own.
  const offenders: string[] = [];
  const walk = async (dir: URL) => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) {
        const lines = (await Deno.readTextFile(url)).split("\n");
        lines.forEach((line, index) => {
          const tag = /^\s*\*\s*@default\b(.*)$/.exec(line);
          if (tag && !/^\s+\{[^{}]+\}\s*$/.test(tag[1]!)) {
            offenders.push(`${url.pathname}:${index + 1}: ${line.trim()}`);
          }
        });
      }
    }
  };
  await walk(new URL("../src/", import.meta.url));
  assertEquals(offenders, []);
});
