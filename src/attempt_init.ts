/**
 * What each attempt sends: the exchange's init with the attempt's own
 * signal, and, when the upload is reported, a fresh counted body.
 *
 * @module
 */

import type { Exchange } from "./attempts.ts";
import type { Deadline } from "./deadline.ts";
import type { Upload } from "./upload.ts";

/** The body of an exchange whose upload is reported, prepared once. */
export function uploadOf(
  exchange: Exchange,
): Promise<Upload | undefined> | undefined {
  const { onUploadProgress: report, init } = exchange;
  if (report === undefined || init.body === undefined || init.body === null) {
    return undefined;
  }
  // Loaded on first use: a program that reports no upload never loads it.
  const preparing = (uploadModule ??= import("./upload.ts")).then((module) =>
    module.Upload.of(init.body!, report)
  );
  return exchange.deadline.race(preparing);
}

let uploadModule: Promise<typeof import("./upload.ts")> | undefined;

/** The init of an encoded request. */
type EncodedInit = RequestInit & { headers: Record<string, string> };

/** The init of one attempt: its own signal, its counted upload body. */
export function attemptInit(
  exchange: Exchange,
  attempt: Deadline,
  upload: Upload | undefined,
): RequestInit {
  let init = exchange.init;
  if (attempt !== exchange.deadline) {
    init = { ...init, signal: attempt.signal ?? null };
  }
  return upload === undefined ? init : upload.init(init as EncodedInit);
}
