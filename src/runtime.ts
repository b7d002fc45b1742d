/**
 * What the runtime that hosts grab is, read from its globals. Every read is
 * guarded: a sandbox or a polyfill may put a getter that throws there, and
 * telling the runtime must never fail a grab.
 *
 * @module
 */

/** The global `name`, or `undefined` where reading it throws. */
export function globalOf(name: string): unknown {
  try {
    return (globalThis as Record<string, unknown>)[name];
  } catch {
    return undefined;
  }
}

/** The user agent the runtime gives (`navigator.userAgent`), if any. */
export function userAgent(): string | undefined {
  try {
    const navigator = globalOf("navigator") as { userAgent?: unknown } | null;
    const agent = navigator?.userAgent;
    return typeof agent === "string" ? agent : undefined;
  } catch {
    return undefined;
  }
}

/** The versions of Node's `process` that tell its hosts apart. */
export interface ProcessVersions {
  node: unknown;
  electron: unknown;
  nw: unknown;
}

/**
 * True in Deno or Bun, told by the version their own globals give. Asked
 * before `process` is read: Deno makes its `process` on the first read,
 * loading its Node layer, some 10–20 ms of a cold start (Deno 2.9). A
 * global of that name alone is not enough: a page's element of that id
 * (`<div id="Deno">`) is one, and so is a stub a test setup puts on Node's
 * globals (`globalThis.Deno = {}`).
 */
export function isDenoOrBun(): boolean {
  try {
    const deno = globalOf("Deno") as { version?: { deno?: unknown } } | null;
    const bun = globalOf("Bun") as { version?: unknown } | null;
    return typeof deno?.version?.deno === "string" ||
      typeof bun?.version === "string";
  } catch {
    // A getter that throws on a member: no runtime's own global.
    return false;
  }
}

/**
 * What a global `process` says of its versions (Node's; Deno and Bun give
 * one too, and Electron and NW.js pages), or `undefined` without one.
 * Never read in Deno or Bun (see {@linkcode isDenoOrBun}).
 */
export function processVersions(): ProcessVersions | undefined {
  try {
    const process = globalOf("process") as { versions?: unknown } | null;
    const versions = process?.versions as Record<string, unknown> | null;
    if (typeof versions !== "object" || versions === null) return undefined;
    return {
      node: versions.node,
      electron: versions.electron,
      nw: versions.nw,
    };
  } catch {
    return undefined;
  }
}

let node: boolean | undefined;

/**
 * True on Node itself: a `process` that names a Node version, in neither
 * Deno nor Bun, which give one too. Told once, by the globals.
 */
export function isNode(): boolean {
  return node ??= !isDenoOrBun() &&
    typeof processVersions()?.node === "string";
}
