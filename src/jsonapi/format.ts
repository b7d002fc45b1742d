/**
 * The `"json-api"` format: writes validated and serialised as JSON:API
 * documents, success documents denormalised. Loaded on first use by
 * {@linkcode codecFor}.
 *
 * @module
 */

import type { ValidationIssue } from "../errors.ts";
import { type Codec, isPassThrough, NO_BODY } from "../format.ts";
import { findNonJsonValues, TOO_LARGE_TO_WRITE } from "../json_value.ts";
import { toJson } from "../json_text.ts";
import { adoptLinks } from "./adopt_links.ts";
import { denormalise } from "./denormalise.ts";
import { mediaType } from "./media_type.ts";
import { isForm, jsonForm, TOO_LARGE, UNREADABLE } from "../json_form.ts";
import { serialise } from "./serialise.ts";
import { validateWrite } from "./validate.ts";

/** What JSON cannot carry in the body as the caller wrote it, with paths. */
function callerIssues(body: unknown): ValidationIssue[] {
  return findNonJsonValues(body, "", { callToJSON: true });
}

const TOO_DEEP: ValidationIssue = Object.freeze({
  path: "",
  message: TOO_LARGE_TO_WRITE,
});

/** The JSON:API codec. */
export const JSON_API_CODEC: Codec = {
  mediaType: ({ jsonApi }) =>
    jsonApi.headers === false ? undefined : mediaType(jsonApi),
  encodeBody(body, method, { casing, wireCasing }) {
    if (body === undefined || body === null) return NO_BODY;
    if (isPassThrough(body)) return { body, encoded: false };
    let json: string | ValidationIssue[];
    // What is checked is what is sent: each getter and toJSON read once.
    const form = isForm(body) ? body : jsonForm(body);
    if (form === TOO_LARGE) return [TOO_DEEP];
    const written = form === UNREADABLE ? body : form;
    try {
      const issues = validateWrite(written, { method, casing, wireCasing });
      if (issues.length > 0) return issues;
      json = toJson(serialise(written, { casing, wireCasing }), "none");
    } catch (error) {
      // A getter that threw while the body was checked or the document
      // built: found again, with its path, in the caller's body.
      json = [];
      if (callerIssues(body).length === 0) throw error;
    }
    if (typeof json === "string") return { body: json, encoded: true };
    // The issues point into the document as serialised (wire casing, under
    // /data/attributes): they are found again in the caller's own body.
    const own = callerIssues(body);
    return own.length > 0 ? own : json;
  },
  decode: (body, { casing }) => denormalise(body, { casing }),
  adopt: adoptLinks,
};
