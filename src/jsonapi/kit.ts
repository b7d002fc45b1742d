/**
 * What the JSON:API codec takes from the core: the core hands these over
 * when it loads the codec ({@linkcode install}), and the codec's modules
 * import them from here. The codec imports no module of the core at run
 * time, so a bundle split into chunks keeps the core in one chunk rather
 * than a chunk shared with the codec, loaded by every program.
 *
 * @module
 */

import type * as casing from "../casing.ts";
import type * as convertKeys_ from "../convert_keys.ts";
import type * as format from "../format.ts";
import type * as jsonForm_ from "../json_form.ts";
import type * as jsonText from "../json_text.ts";
import type * as jsonValue from "../json_value.ts";
import type * as object from "../object.ts";
import type * as mediaType_ from "./media_type.ts";
import type * as source from "./source.ts";

/**
 * The core's helpers and values that the codec uses, in this order: a list
 * rather than an object, so a minified bundle spends no bytes on their names.
 */
export type JsonApiKit = readonly [
  isPassThrough: typeof format.isPassThrough,
  NO_BODY: format.EncodedBody,
  convertKey: typeof casing.convertKey,
  clashMark: typeof casing.clashMark,
  mayHaveClashed: typeof casing.mayHaveClashed,
  KeyClash: typeof convertKeys_.KeyClash,
  convertKeys: typeof convertKeys_.convertKeys,
  clashIn: typeof convertKeys_.clashIn,
  findClash: typeof convertKeys_.findClash,
  findKeyClash: typeof convertKeys_.findKeyClash,
  isPlainObject: typeof object.isPlainObject,
  hasEnumerableInheritedKeys: typeof object.hasEnumerableInheritedKeys,
  setOwn: typeof object.setOwn,
  owns: typeof object.owns,
  ownValue: typeof object.ownValue,
  ownMembersOnly: typeof object.ownMembersOnly,
  isIdentityKey: typeof object.isIdentityKey,
  escapeToken: typeof object.escapeToken,
  joinPointer: typeof object.joinPointer,
  describeValue: typeof jsonValue.describeValue,
  findNonJsonValues: typeof jsonValue.findNonJsonValues,
  TOO_LARGE_TO_WRITE: string,
  toJson: typeof jsonText.toJson,
  jsonForm: typeof jsonForm_.jsonForm,
  isForm: typeof jsonForm_.isForm,
  UNREADABLE: typeof jsonForm_.UNREADABLE,
  TOO_LARGE: typeof jsonForm_.TOO_LARGE,
  mediaType: typeof mediaType_.mediaType,
  setInfoReader: typeof source.setInfoReader,
];

/** A key clash, as a type; the class is {@linkcode KeyClash}. */
export type KeyClash = convertKeys_.KeyClash;

export let convertKey: typeof casing.convertKey;
export let clashMark: typeof casing.clashMark;
export let mayHaveClashed: typeof casing.mayHaveClashed;
export let KeyClash: typeof convertKeys_.KeyClash;
export let convertKeys: typeof convertKeys_.convertKeys;
export let clashIn: typeof convertKeys_.clashIn;
export let findClash: typeof convertKeys_.findClash;
export let findKeyClash: typeof convertKeys_.findKeyClash;
export let isPlainObject: typeof object.isPlainObject;
export let hasEnumerableInheritedKeys: typeof object.hasEnumerableInheritedKeys;
export let setOwn: typeof object.setOwn;
export let owns: typeof object.owns;
export let ownValue: typeof object.ownValue;
export let ownMembersOnly: typeof object.ownMembersOnly;
export let isIdentityKey: typeof object.isIdentityKey;
export let escapeToken: typeof object.escapeToken;
export let joinPointer: typeof object.joinPointer;
export let describeValue: typeof jsonValue.describeValue;
export let findNonJsonValues: typeof jsonValue.findNonJsonValues;
export let TOO_LARGE_TO_WRITE: string;
export let isPassThrough: typeof format.isPassThrough;
export let NO_BODY: format.EncodedBody;
export let toJson: typeof jsonText.toJson;
export let jsonForm: typeof jsonForm_.jsonForm;
export let isForm: typeof jsonForm_.isForm;
export let UNREADABLE: typeof jsonForm_.UNREADABLE;
export let TOO_LARGE: typeof jsonForm_.TOO_LARGE;
export let mediaType: typeof mediaType_.mediaType;
export let setInfoReader: typeof source.setInfoReader;

/** Takes the core's helpers; called once, before the codec is first used. */
export function install(kit: JsonApiKit): void {
  [
    isPassThrough,
    NO_BODY,
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
  ] = kit;
}
