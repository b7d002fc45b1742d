/**
 * A form as the blob of its `multipart/form-data` body, made at once: for
 * Node's own `fetch`, whose undici serialises a form again, with another
 * boundary, for the target of a 307 or 308 redirect, yet keeps the
 * `Content-Type` that names the first one, so the server cannot parse what
 * arrives. A blob is sent again byte for byte, with its type.
 *
 * @module
 */

/**
 * The form's body as undici writes it (the HTML standard's multipart
 * encoding): names and file names escaped, line breaks in names and text
 * values made CRLF, a file's type or `application/octet-stream`. Its files
 * are referred to, not read. The blob's type names its boundary, and
 * `fetch` sends it as the body's `Content-Type`.
 */
export function formBlob(form: FormData): Blob {
  const random = crypto.getRandomValues(new Uint8Array(12));
  const boundary = `----formdata-grab-${
    Array.from(random, (byte) => byte.toString(16).padStart(2, "0")).join("")
  }`;
  const parts: BlobPart[] = [];
  for (const [name, value] of form) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${
      escape(lineBreaks(name))
    }"`;
    if (typeof value === "string") {
      parts.push(`${head}\r\n\r\n${lineBreaks(value)}\r\n`);
      continue;
    }
    head += `; filename="${escape(value.name)}"\r\nContent-Type: ${
      value.type || "application/octet-stream"
    }\r\n\r\n`;
    parts.push(head, value, "\r\n");
  }
  parts.push(`--${boundary}--\r\n`);
  return new Blob(parts, { type: `multipart/form-data; boundary=${boundary}` });
}

function escape(text: string): string {
  return text.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");
}

function lineBreaks(text: string): string {
  return text.replace(/\r?\n|\r/g, "\r\n");
}
