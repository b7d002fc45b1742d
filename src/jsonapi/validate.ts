/**
 * Checking a JSON:API write body before any request.
 *
 * @module
 */

import {
  clashMark,
  describeValue,
  isIdentityKey,
  isPlainObject,
  joinPointer,
  mayHaveClashed,
  ownValue,
} from "./kit.ts";
import type { Casing } from "../casing.ts";
import type { HttpMethod } from "../endpoint.ts";
import type { ValidationIssue } from "../errors.ts";
import { shapeOf } from "./serialise.ts";
import { isExtraMember } from "./members.ts";
import { checkResourceHead, checkWireResource } from "./validate_resource.ts";
import {
  add,
  type Check,
  checkExtraMember,
  checkFlatField,
  checkIdentifier,
  checkJson,
  checkMemberName,
  checkObjectMember,
} from "./write_checks.ts";
import { checkFieldClash } from "./field_clash.ts";

type Item = Record<string, unknown>;

/** Options of {@linkcode validateWrite}. */
export interface ValidateWriteOptions {
  /** The request method; `PATCH` needs an `id` or `lid`. */
  method: HttpMethod;
  /** The caller's key casing. */
  casing: Casing;
  /** The server's key casing, used when `casing` is not `"none"`. */
  wireCasing: Casing;
}

/**
 * Lists every way `body` breaks the contract's JSON:API write rules; never
 * throws. `body` is a flat resource, a wire-shape resource or a whole
 * document (see `shapeOf`). Paths are JSON pointers into `body` as the caller
 * wrote it: `/author/id` (flat), `/attributes/title` (wire), `/data/0/id`
 * (document), `""` for the body itself.
 *
 * Checked: the body is a plain object; `type` is a non-empty string; `id` is
 * a string or a finite number, `lid` a string; `PATCH` has `id` or `lid`;
 * no attribute or relationship is named `type`, `id`, `lid`,
 * `relationships` or `links`, and no attribute and relationship share a
 * name (nor, in the flat shape, `attributes`, which
 * shows a wire shape mixed with flat fields); no object inside an attribute
 * value has a `relationships` or `links` member; every attribute and
 * relationship name, and every key inside attribute values, is a valid
 * JSON:API 1.1 member name once cased to `wireCasing`; linkage is
 * `{ type, id | lid, meta? }`, an array of those or `null`; a document, its
 * resources and relationship objects hold only the members JSON:API defines
 * (and @-members and extension members), and a document's `included` is an
 * array of resources, each checked as one in `data`; and every value can be JSON. The
 * other fields of a flat relationship target (a denormalised resource sent
 * back) are not checked, as `serialise` drops them.
 *
 * @example
 * ```ts ignore
 * validateWrite({ title: "x", views: NaN }, { method: "PATCH", casing: "none", wireCasing: "none" });
 * // [
 * //   { path: "/type", message: 'Cannot send the resource as "type" must be a non-empty string: value is missing' },
 * //   { path: "", message: 'Cannot send the resource with PATCH: "id" and "lid" are missing' },
 * //   { path: "/views", message: 'Cannot serialise "/views" as JSON: value is NaN' },
 * // ]
 * ```
 */
export function validateWrite(
  body: unknown,
  options: ValidateWriteOptions,
): ValidationIssue[] {
  const to = options.casing === "none" ? "none" : options.wireCasing;
  const mark = to === "none" ? 0 : clashMark(to);
  const issues = checkBody(body, { issues: [], method: options.method, to });
  // Looked for only when the names converted may hold a clash: the walk
  // again, with a look at each object's names.
  if (to === "none" || !mayHaveClashed(to, mark)) return issues;
  return checkBody(body, {
    issues: [],
    method: options.method,
    to,
    clashes: true,
  });
}

function checkBody(body: unknown, check: Check): ValidationIssue[] {
  if (!isPlainObject(body)) {
    add(
      check,
      "",
      `Cannot send the body as JSON:API: value is ${describeValue(body)}`,
    );
    return check.issues;
  }
  const shape = shapeOf(body);
  if (shape === "wire") checkWireResource(check, body, "", []);
  else if (shape === "document") checkDocument(check, body);
  else checkFlatResource(check, body);
  return check.issues;
}

function checkDocument(check: Check, body: Item): void {
  const root = [body];
  for (const key of Object.keys(body)) {
    const value = body[key];
    const at = joinPointer("", key);
    if (key === "included" && value !== undefined) {
      checkIncluded(check, value, root);
    } else if (key !== "data") {
      const known = value !== undefined &&
        checkMemberName(check, key, at, "document");
      if (known && !isExtraMember(key)) {
        checkObjectMember(check, key, value, at, root);
      } else if (known) checkJson(check, value, at, root);
    } else if (Array.isArray(value)) {
      // By index: a hole is not an identifier (forEach would skip it).
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const p = joinPointer(at, i);
        if (
          isPlainObject(item) &&
          (ownValue(item, "attributes") !== undefined ||
            ownValue(item, "relationships") !== undefined)
        ) checkWireResource(check, item, p, [body, value]);
        else checkIdentifier(check, item, p, [body, value]);
      }
    } else if (isPlainObject(value)) {
      checkWireResource(check, value, "/data", root);
    } else if (value !== null) {
      add(
        check,
        "/data",
        `Cannot send the document as "data" must be a resource, linkage or null: value is ${
          describeValue(value)
        }`,
      );
    }
  }
}

// `included`: resource objects, checked and cased as `data`'s are.
function checkIncluded(check: Check, value: unknown, root: Item[]): void {
  if (!Array.isArray(value)) {
    const why = `value is ${describeValue(value)}`;
    add(
      check,
      "/included",
      `Cannot send the document as "included" must be an array of resources: ${why}`,
    );
    return;
  }
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    const at = joinPointer("/included", i);
    if (isPlainObject(item)) {
      checkWireResource(check, item, at, [...root, value]);
      // Only linkage names an included resource: one without both is lost.
      if (
        ownValue(item, "id") === undefined &&
        ownValue(item, "lid") === undefined
      ) {
        add(
          check,
          at,
          `Cannot send the included resource: "id" and "lid" are missing; give one, which a relationship's linkage names it by`,
        );
      }
      continue;
    }
    const why = `value is ${describeValue(item)}`;
    add(
      check,
      at,
      `Cannot send the included resource: it must be a resource object, { type, id, attributes?, relationships? }: ${why}`,
    );
  }
}

function checkFlatResource(check: Check, body: Item): void {
  const root = [body];
  const fields: [string, string][] = [];
  checkResourceHead(check, body, "");
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (isIdentityKey(key)) continue;
    const at = joinPointer("", key);
    // Sent on the resource as written, as `serialise` puts it: no field.
    if (isExtraMember(key)) checkExtraMember(check, key, value, at, root);
    else {
      if (value !== undefined) fields.push([key, at]);
      checkFlatField(check, key, value, at, root);
    }
  }
  checkFieldClash(check, "", fields);
}
