/**
 * The `"json-api"` format: writes validated and serialised as JSON:API
 * documents, success documents denormalised. Loaded on first use by
 * {@linkcode codecFor}.
 *
 * @module
 */

import {
  findNonJsonValues,
  install,
  isForm,
  isPassThrough,
  type JsonApiKit,
  jsonForm,
  mediaType,
  NO_BODY,
  toJson,
  TOO_LARGE,
  TOO_LARGE_TO_WRITE,
  UNREADABLE,
} from "./kit.ts";
import type { ValidationIssue } from "../errors.ts";
import type { Codec } from "../format.ts";
import { adoptLinks } from "./adopt_links.ts";
import { denormalise } from "./denormalise.ts";
import { serialise } from "./serialise.ts";
import { validateWrite } from "./validate.ts";
import { readLinks } from "./wire_link.ts";

/** What JSON cannot carry in the body as the caller wrote it, with paths. */
function callerIssues(body: unknown): ValidationIssue[] {
  return findNonJsonValues(body, "", { callToJSON: true });
}

let TOO_DEEP: ValidationIssue;

/**
 * The JSON:API codec, given the core's helpers that it uses (see
 * `kit.ts`); called once, when the core has loaded this module.
 */
export function jsonApiCodec(kit: JsonApiKit): Codec {
  install(kit);
  readLinks();
  TOO_DEEP = Object.freeze({ path: "", message: TOO_LARGE_TO_WRITE });
  return JSON_API_CODEC;
}

const JSON_API_CODEC: Codec = {
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
