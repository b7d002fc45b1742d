/**
 * The HTML standard's event-stream interpretation (9.2.6), written as
 * plainly as it reads, on a whole decoded stream: the yardstick for grab's
 * incremental parser.
 *
 * @module
 */

import type { ServerSentEvent } from "../src/response_type.ts";

/** The events of a whole stream, and the last event id it left. */
export interface ReferenceStream {
  events: ServerSentEvent[];
  lastEventId: string;
}

/**
 * The events of `text`, decoded with its BOM kept (one leading BOM is
 * removed here, as the standard's decoder does). `retry` on an event is the
 * latest `retry:` of digits before it.
 */
export function referenceSse(text: string): ReferenceStream {
  if (text.startsWith("\ufeff")) text = text.slice(1);
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // Not ended by a line end: never a line.
  const events: ServerSentEvent[] = [];
  let data = "";
  let type = "";
  let idBuffer = "";
  let lastEventId = "";
  let retry: number | undefined;
  for (const line of lines) {
    if (line === "") {
      lastEventId = idBuffer;
      if (data !== "") {
        const event: ServerSentEvent = {
          event: type === "" ? "message" : type,
          data: data.slice(0, -1),
          id: lastEventId,
        };
        if (retry !== undefined) event.retry = retry;
        events.push(event);
      }
      data = type = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "event") type = value;
    else if (name === "data") data += `${value}\n`;
    else if (name === "id" && !value.includes("\0")) idBuffer = value;
    else if (name === "retry" && /^[0-9]+$/.test(value)) retry = Number(value);
  }
  return { events, lastEventId };
}
