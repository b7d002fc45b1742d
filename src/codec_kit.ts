/**
 * What the core hands the JSON:API codec when it loads it: the helpers the
 * codec would otherwise import, so a bundle keeps them in the core's chunk
 * (see `jsonapi/kit.ts`).
 *
 * @module
 */

import { clashMark, convertKey, mayHaveClashed } from "./casing.ts";
import {
  clashIn,
  convertKeys,
  findClash,
  findKeyClash,
  KeyClash,
} from "./convert_keys.ts";
import { isForm, jsonForm, TOO_LARGE, UNREADABLE } from "./json_form.ts";
import { toJson } from "./json_text.ts";
import {
  describeValue,
  findNonJsonValues,
  TOO_LARGE_TO_WRITE,
} from "./json_value.ts";
import type { JsonApiKit } from "./jsonapi/kit.ts";
import { mediaType } from "./jsonapi/media_type.ts";
import { setInfoReader } from "./jsonapi/source.ts";
import {
  escapeToken,
  hasEnumerableInheritedKeys,
  isIdentityKey,
  isPlainObject,
  joinPointer,
  ownMembersOnly,
  owns,
  ownValue,
  setOwn,
} from "./object.ts";

/** The codec's kit: the format module's own two, then the rest from here. */
export function jsonApiKit(
  isPassThrough: JsonApiKit[0],
  noBody: JsonApiKit[1],
): JsonApiKit {
  return [
    isPassThrough,
    noBody,
    convertKey,
    clashMark,
    mayHaveClashed,
    KeyClash,
    convertKeys,
    clashIn,
    findClash,
    findKeyClash,
    isPlainObject,
    hasEnumerableInheritedKeys,
    setOwn,
    owns,
    ownValue,
    ownMembersOnly,
    isIdentityKey,
    escapeToken,
    joinPointer,
    describeValue,
    findNonJsonValues,
    TOO_LARGE_TO_WRITE,
    toJson,
    jsonForm,
    isForm,
    UNREADABLE,
    TOO_LARGE,
    mediaType,
    setInfoReader,
  ];
}
