/**
 * Bodies a caller changes once a grab has begun: each case makes a body and
 * the change to make to it, for tests that check the grab sends the body as
 * it was given.
 *
 * @module
 */

/** A body and the change a caller makes to it after the call. */
export type ChangedBody = [name: string, make: () => [BodyInit, () => void]];

/** Bytes filled again, a buffer transferred away, search parameters set again. */
export const CHANGED_BODIES: readonly ChangedBody[] = [
  ["bytes filled again", () => {
    const bytes = new TextEncoder().encode("AAAA");
    return [bytes, () => bytes.fill(66)];
  }],
  ["an ArrayBuffer transferred away", () => {
    const buffer = new TextEncoder().encode("AAAA").buffer;
    return [buffer, () => void buffer.transfer()];
  }],
  ["search parameters set again", () => {
    const params = new URLSearchParams({ a: "AAAA" });
    return [params, () => params.set("a", "BBBB")];
  }],
];
