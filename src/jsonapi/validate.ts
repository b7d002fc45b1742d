/**
 * Checking a JSON:API write body before any request.
 *
 * @module
 */

import { type Casing, convertKey, isPlainObject } from "../casing.ts";
import type { HttpMethod } from "../endpoint.ts";
import type { ValidationIssue } from "../errors.ts";
import { describeValue, findNonJsonValues } from "../json_value.ts";
import { joinPointer } from "../object.ts";
import {
  isFlatRelationship,
  isRelationshipObject,
  shapeOf,
} from "./serialise.ts";

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

// JSON:API 1.1 member names: globally allowed characters (a-z, A-Z, 0-9,
// U+0080 and above) at both ends, "-", "_" and " " inside; an optional "@"
// (@-members) and "namespace:" (extension members) prefix.
const MEMBER_NAME =
  /^@?(?:[A-Za-z0-9]+:)?[A-Za-z0-9\u0080-\uFFFF](?:[\w \u0080-\uFFFF-]*[A-Za-z0-9\u0080-\uFFFF])?$/;
const RESERVED = new Set(["type", "id", "lid", "relationships", "links"]);

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
 * `relationships` or `links` (nor, in the flat shape, `attributes`, which
 * shows a wire shape mixed with flat fields); no object inside an attribute
 * value has a `relationships` or `links` member; every attribute and
 * relationship name, and every key inside attribute values, is a valid
 * JSON:API 1.1 member name once cased to `wireCasing`; linkage is
 * `{ type, id | lid, meta? }`, an array of those or `null`; a document
 * resource has only resource members; and every value can be JSON. The
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
  const issues: ValidationIssue[] = [];
  const to = options.casing === "none" ? "none" : options.wireCasing;
  const add = (path: string, message: string) => issues.push({ path, message });
  const json = (value: unknown, at: string, within: object[]) =>
    issues.push(...findNonJsonValues(value, at, { within }));

  // The problem with a field or nested key name, once cased.
  const nameProblem = (raw: string, reserved: (wire: string) => boolean) => {
    const wire = convertKey(raw, to);
    const shown = wire === raw ? `"${raw}"` : `"${raw}" (sent as "${wire}")`;
    return reserved(wire)
      ? `Cannot send field ${shown}: the name is reserved by JSON:API`
      : MEMBER_NAME.test(wire)
      ? undefined
      : `Cannot send field ${shown}: the name is not a valid JSON:API member name`;
  };
  const field = (raw: string, at: string, flat: boolean) => {
    const problem = nameProblem(
      raw,
      (wire) =>
        RESERVED.has(wire) ||
        (flat && (RESERVED.has(raw) || raw === "attributes")),
    );
    if (problem !== undefined) add(at, problem);
  };
  const nested = (wire: string) => wire === "relationships" || wire === "links";
  const attribute = (value: unknown, at: string, within: object[]) =>
    issues.push(...findNonJsonValues(value, at, {
      within,
      check: (key) => nameProblem(key, nested),
    }));

  const typeAndId = (item: Item, at: string, what: string) => {
    for (const key of ["type", "id", "lid"]) {
      const value = item[key];
      if (
        key === "type"
          ? typeof value !== "string" || value === ""
          : value !== undefined && typeof value !== "string" &&
            !(key === "id" && Number.isFinite(value))
      ) {
        add(
          `${at}/${key}`,
          `Cannot send the ${what} as "${key}" must be a ${
            key === "type" ? "non-empty " : ""
          }string: value is ${describeValue(value)}`,
        );
      }
    }
  };
  const resourceHead = (item: Item, at: string) => {
    typeAndId(item, at, "resource");
    if (
      options.method === "PATCH" && item.id === undefined &&
      item.lid === undefined
    ) {
      add(
        at,
        `Cannot send the resource with PATCH: "id" and "lid" are missing`,
      );
    }
  };

  const identifier = (value: unknown, at: string, within: object[]) => {
    if (!isPlainObject(value)) {
      add(
        at,
        `Cannot send the linkage as it must be { type, id }, { type, lid }, an array of those or null: value is ${
          describeValue(value)
        }`,
      );
      return;
    }
    typeAndId(value, at, "linkage");
    if (value.id === undefined && value.lid === undefined) {
      add(at, `Cannot send the linkage: "id" and "lid" are missing`);
    }
    for (const key of Object.keys(value)) {
      const p = joinPointer(at, key);
      if (key === "meta") json(value[key], p, [...within, value]);
      else if (key !== "type" && key !== "id" && key !== "lid") {
        add(
          p,
          `Cannot send linkage member "${key}": only type, id, lid and meta are allowed`,
        );
      }
    }
  };
  const linkage = (value: unknown, at: string, within: object[]) => {
    if (Array.isArray(value)) {
      value.forEach((item, i) =>
        identifier(item, joinPointer(at, i), [...within, value])
      );
    } else if (value !== null && value !== undefined) {
      identifier(value, at, within);
    }
  };

  const members = (
    name: string,
    value: unknown,
    at: string,
    within: object[],
    each: (key: string, value: unknown, at: string, within: object[]) => void,
  ) => {
    if (!isPlainObject(value)) {
      add(
        at,
        `Cannot send the resource as "${name}" must be an object: value is ${
          describeValue(value)
        }`,
      );
      return;
    }
    for (const key of Object.keys(value)) {
      each(key, value[key], joinPointer(at, key), [...within, value]);
    }
  };
  const wireResource = (item: Item, at: string, within: object[]) => {
    resourceHead(item, at);
    const inside = [...within, item];
    for (const key of Object.keys(item)) {
      const value = item[key];
      const p = joinPointer(at, key);
      if (
        value === undefined || key === "type" || key === "id" || key === "lid"
      ) continue;
      if (key === "attributes") {
        members(key, value, p, inside, (k, v, q, w) => {
          field(k, q, false);
          attribute(v, q, w);
        });
      } else if (key === "relationships") {
        members(key, value, p, inside, (k, v, q, w) => {
          field(k, q, false);
          if (isRelationshipObject(v)) {
            for (const m of Object.keys(v)) {
              const r = joinPointer(q, m);
              if (m === "data") linkage(v.data, r, [...w, v]);
              else json(v[m], r, [...w, v]);
            }
          } else linkage(v, q, w);
        });
      } else if (key === "meta" || key === "links" || /^@|:/.test(key)) {
        json(value, p, inside);
      } else {
        add(
          p,
          `Cannot send resource member "${key}": put fields under "attributes" or "relationships"`,
        );
      }
    }
  };

  if (!isPlainObject(body)) {
    add(
      "",
      `Cannot send the body as JSON:API: value is ${describeValue(body)}`,
    );
    return issues;
  }
  const root = [body];
  const shape = shapeOf(body);
  if (shape === "wire") wireResource(body, "", []);
  else if (shape === "document") {
    for (const key of Object.keys(body)) {
      const value = body[key];
      if (key !== "data") json(value, joinPointer("", key), root);
      else if (Array.isArray(value)) {
        value.forEach((item, i) => {
          const at = joinPointer("/data", i);
          if (
            isPlainObject(item) &&
            (item.attributes !== undefined || item.relationships !== undefined)
          ) wireResource(item, at, [body, value]);
          else identifier(item, at, [body, value]);
        });
      } else if (isPlainObject(value)) wireResource(value, "/data", root);
      else if (value !== null) {
        add(
          "/data",
          `Cannot send the document as "data" must be a resource, linkage or null: value is ${
            describeValue(value)
          }`,
        );
      }
    }
  } else {
    resourceHead(body, "");
    for (const key of Object.keys(body)) {
      const value = body[key];
      if (key === "type" || key === "id" || key === "lid") continue;
      const at = joinPointer("", key);
      field(key, at, true);
      if (!isFlatRelationship(value)) attribute(value, at, root);
      else if (Array.isArray(value)) {
        value.forEach((item: Item, i) =>
          typeAndId(item, joinPointer(at, i), "linkage")
        );
      } else typeAndId(value as Item, at, "linkage");
    }
  }
  return issues;
}
