/**
 * The data of a body read to its end, as the response type asks.
 *
 * @module
 */

import { headerOf } from "./platform_response.ts";
import type { ResponseType } from "./response_type.ts";

/**
 * The data of a body read as `type`: a 2xx JSON body parsed (a
 * `SyntaxError` when it is not JSON), an error body parsed when it is JSON
 * and left as text otherwise, text, bytes or a blob as they are.
 */
export function decodeBody(
  type: ResponseType,
  ok: boolean,
  result: string | Uint8Array | null,
  response: Response,
  platform: boolean,
): unknown {
  if (type === "bytes") return result ?? new Uint8Array(0);
  if (type === "blob") {
    const parts = result === null ? [] : [result as Uint8Array<ArrayBuffer>];
    const type = headerOf(response, platform, "content-type") ?? "";
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
