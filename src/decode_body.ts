/**
 * The data of a body read to its end, as the response type asks.
 *
 * @module
 */

import { headerOf } from "./platform_response.ts";
import type { ResponseType } from "./response_type.ts";
import type { Reading } from "./outcome.ts";

/**
 * The data of a body read as `type`: a 2xx JSON body parsed (a
 * `SyntaxError` when it is not JSON), an error body parsed when it is JSON
 * and left as text otherwise, text, bytes or a blob as they are (the
 * blob typed as `Response.blob()` types it).
 */
export function decodeBody(
  type: ResponseType,
  ok: boolean,
  result: string | Uint8Array | null,
  { response, source, read }: Reading,
): unknown {
  if (type === "bytes") return result ?? new Uint8Array(0);
  if (type === "blob") {
    const parts = result === null ? [] : [result as Uint8Array<ArrayBuffer>];
    const declared = headerOf(response, source.platform, "content-type");
    // Loaded for a 2xx blob, the one kind of body read as a blob.
    const type = declared === null ? "" : read.streams!.blobTypeOf(declared);
    return new Blob(parts, { type });
  }
  if (type === "text") return result ?? "";
  const text = result as string;
  try {
    return JSON.parse(text);
  } catch (error) {
    return ok ? error : text;
  }
}
