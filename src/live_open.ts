/**
 * A live body opened at the response's head: the deadlines handed over to
 * the body, and an SSE body that the server labels as something else refused
 * before it is read.
 *
 * @module
 */

import type { Reading } from "./outcome.ts";
import type { StreamType } from "./response_type.ts";
import {
  answeredAt,
  cancelSettles,
  headerOf,
  liveFailure,
  quoted,
} from "./live_kit.ts";

/**
 * Opens a live body: the grab settles now, so its timeout stops counting,
 * and the body keeps the deadlines (the caller's signal, `attemptTimeout`)
 * until it is done with.
 */
export function openLive(reading: Reading, type: StreamType): unknown {
  const { whole, source } = reading;
  const attempt = source.deadline;
  const releaseWhole = whole.keepFor(true);
  const releaseAttempt = attempt === whole ? undefined : attempt.keepFor(false);
  // The body keeps `release`, so it keeps none of the grab's read options.
  const letGo = reading.letGoOfBody;
  const release = () => {
    releaseAttempt?.();
    releaseWhole();
    letGo?.();
  };
  try {
    return openStream(reading, type, release);
  } catch (error) {
    release();
    throw error;
  }
}

function openStream(
  reading: Reading,
  type: StreamType,
  release: () => void,
): unknown {
  const { source, read, method } = reading;
  const href = answeredAt(reading);
  return read.streams!.openStream(type, {
    response: reading.response,
    status: reading.status,
    platform: source.platform,
    waitForCancel: cancelSettles(source),
    deadline: source.deadline,
    release,
    maxBodyBytes: reading.maxBodyBytes,
    progress: read.onDownloadProgress,
    casing: read.casing,
    schema: read.schema,
    idleTimeout: read.idleTimeout,
    fail: liveFailure(
      method,
      href,
      source.deadline,
      reading.bodyFailed,
      reading.sent,
    ),
  });
}

/**
 * Why an SSE body cannot be read as events: its server labels it as another
 * type (a JSON answer of an API that streams only when asked, a login page),
 * whose lines would be read as no events at all, as the HTML standard's
 * `EventSource` refuses it. A body with no type is read: servers leave it
 * out, and no other body is told by its absence.
 */
export function notEventStream(reading: Reading): string | undefined {
  const { response, source, status } = reading;
  const declared = headerOf(response, source.platform, "content-type");
  if (declared === null) return undefined;
  const essence = reading.read.streams!.essenceOf(declared);
  if (essence === "" || essence === "text/event-stream") {
    return undefined;
  }
  return `Cannot read Server-Sent Events: the ${status} response is "${
    quoted(declared)
  }", not "text/event-stream" (a server that streams only when asked answers with one body); read it with responseType "text" to see what the server sent`;
}
