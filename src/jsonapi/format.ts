/**
 * The `"json-api"` format: writes validated and serialised as JSON:API
 * documents, success documents denormalised. Loaded on first use by
 * {@linkcode codecFor}.
 *
 * @module
 */

import { type Codec, isPassThrough, NO_BODY, toJson } from "../format.ts";
import { denormalise } from "./denormalise.ts";
import { mediaType } from "./media_type.ts";
import { serialise } from "./serialise.ts";
import { validateWrite } from "./validate.ts";

/** The JSON:API codec. */
export const JSON_API_CODEC: Codec = {
  mediaType: ({ jsonApi }) =>
    jsonApi.headers === false ? undefined : mediaType(jsonApi),
  encodeBody(body, method, { casing, wireCasing }) {
    if (body === undefined || body === null) return NO_BODY;
    if (isPassThrough(body)) return { body, encoded: false };
    const issues = validateWrite(body, { method, casing, wireCasing });
    if (issues.length > 0) return issues;
    const json = toJson(serialise(body, { casing, wireCasing }), "none");
    return typeof json === "string" ? { body: json, encoded: true } : json;
  },
  decode: (body, { casing }) => denormalise(body, { casing }),
};
