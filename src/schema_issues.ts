/**
 * A schema's issues as a failure's message tells them: how many, and the
 * first with its path.
 *
 * @module
 */

import { quoted, withoutSent } from "./http_error.ts";
import { read, redactUrls } from "./redact.ts";

/**
 * What a schema's `issues` say in a message: how many, and the first, its
 * path as a JSON pointer and its message quoted (redacted, cut: a validator
 * may quote the value that failed, even a credential of the headers `sent`
 * that the server echoed). Read with care, as a validator's issue may be
 * anything.
 */
export function issuesDetail(
  issues: readonly unknown[] | undefined,
  sent?: HeadersInit,
): string | undefined {
  const count = issues === undefined ? undefined : read(issues, "length");
  if (typeof count !== "number" || count < 1) return undefined;
  const first = read(issues!, 0);
  const issue = typeof first === "object" && first !== null ? first : {};
  const text = read(issue, "message");
  const message = typeof text === "string"
    ? quoted(withoutSent(text, sent))
    : "no message";
  const path = withoutSent(pointerOf(read(issue, "path")), sent);
  const where = path === "" ? "at the root" : `at ${quoted(path)}`;
  return count === 1
    ? `1 issue; ${where}: ${message}`
    : `${count} issues; the first ${where}: ${message}`;
}

/** Most segments of an issue's path a message names. */
const MAX_SEGMENTS = 64;

/**
 * A Standard Schema issue's path (keys, or `{ key }` segments) as a JSON
 * pointer, as a `GrabValidationError`'s paths are; `""` for none.
 */
function pointerOf(path: unknown): string {
  let pointer = "";
  try {
    const length = Array.isArray(path) ? read(path, "length") : 0;
    const end = typeof length === "number" ? length : 0;
    for (let at = 0; at < end; at++) {
      if (at === MAX_SEGMENTS) return `${pointer}/…`;
      let key = read(path as unknown[], at);
      if (typeof key === "object" && key !== null) key = read(key, "key");
      const name = typeof key === "symbol"
        ? key.description ?? ""
        : String(key);
      // A key may be a URL (a map of links): its query goes before the
      // escaping of "/" hides its "://" from the message's redaction.
      pointer += "/" +
        redactUrls(name).replaceAll("~", "~0").replaceAll("/", "~1");
    }
  } catch {
    // A revoked proxy, or a key whose text throws: the path as far as read.
  }
  return pointer;
}
