/**
 * One item of a live body as the caller gets it: an NDJSON line parsed, its
 * keys in the caller's casing and checked by the schema; a server-sent event
 * as it came, or with its data parsed and checked when there is a schema.
 *
 * @module
 */

import type { ItemStep } from "./grab_stream.ts";
import { convertKeys, KeyClash, owns, validateWithin } from "./live_kit.ts";
import type { ServerSentEvent } from "./response_type.ts";
import type { LiveBody } from "./streams.ts";

/** What decoding an item needs of its live body. */
export type ItemContext = Pick<
  LiveBody,
  "schema" | "casing" | "fail" | "deadline"
>;

/** What a `[DONE]` met by a schema is, and what to do instead. */
const SENTINEL =
  "the end sentinel of an OpenAI-style stream, which no schema takes: read such a stream without one and stop at it";

/**
 * The item `raw` as the caller's value, or the `GrabTransportError` that
 * ends the stream: kind `"parse"` for text that is not JSON or for two keys
 * of one object that the casing makes one, `"schema"` for a value the schema
 * refuses.
 */
export async function decodeItem(
  raw: ServerSentEvent | string,
  { schema, casing, fail, deadline }: ItemContext,
): Promise<ItemStep<unknown>> {
  // An event's data is JSON only when a schema asks for values.
  if (typeof raw !== "string" && schema === undefined) return { value: raw };
  const text = typeof raw === "string" ? raw : raw.data;
  let value: unknown;
  try {
    value = JSON.parse(text);
    if (casing !== "none") value = convertKeys(value, casing);
  } catch (cause) {
    const what = typeof raw === "string"
      ? "a line"
      : raw.data === "[DONE]"
      ? `an event's data, "[DONE]", ${SENTINEL}`
      : "an event's data";
    return {
      error: fail(
        "parse",
        cause instanceof KeyClash
          ? { message: `Cannot read ${what}: ${cause.message}` }
          : { cause, detail: what },
      ),
    };
  }
  if (schema !== undefined) {
    const checked = await validateWithin(schema, value, deadline);
    if (owns(checked, "passed")) {
      return { error: fail(checked.passed, { cause: checked.cause }) };
    }
    if (owns(checked, "issues")) {
      return { error: fail("schema", { issues: checked.issues }) };
    }
    value = checked.value;
  }
  return { value: typeof raw === "string" ? value : { ...raw, data: value } };
}
