/**
 * The origins a factory trusts besides its own: the checked
 * `trustedOrigins` option.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import { CREATING, validationError } from "./validation_error.ts";
import { describeValue } from "./json_value.ts";
import { redactUrls } from "./redact.ts";
import { MAX_LIST_ITEMS, tooLong } from "./object.ts";
import { attempt, quoting, reasonOf } from "./thrown.ts";

/**
 * The origins of `trustedOrigins`, each of which must be exactly an origin
 * (`scheme://host[:port]`, a trailing `/` allowed): a path would suggest a
 * narrower trust than the origin-wide trust headers and hooks get.
 */
export function trustedOriginSet(
  entries: readonly string[] | undefined | null,
): Set<string> {
  const origins = new Set<string>();
  // The list is the caller's: a getter, a Proxy's trap or a revoked Proxy
  // may throw while it is read, which is a problem of the option too.
  const [read, found] = attempt(() => checkEntries(entries, origins));
  const issues = read ? found as ValidationIssue[] : [
    quoting({
      path: "/trustedOrigins",
      message: `Cannot read the option "trustedOrigins": ${reasonOf(found)}`,
    }, found),
  ];
  if (issues.length > 0) {
    throw validationError(issues, CREATING);
  }
  return origins;
}

/** Adds each origin of `entries` to `origins`; the entries refused. */
function checkEntries(
  entries: readonly string[] | undefined | null,
  origins: Set<string>,
): ValidationIssue[] {
  const list = entries ?? [];
  const wrong = !Array.isArray(list)
    ? `must be an array of origins such as "${EXAMPLE_ORIGIN}"`
    : list.length > MAX_LIST_ITEMS
    ? tooLong(list.length)
    : undefined;
  if (wrong !== undefined) {
    return [{
      path: "/trustedOrigins",
      message: `Cannot use the option "trustedOrigins": it ${wrong}`,
    }];
  }
  const issues: ValidationIssue[] = [];
  for (const [index, entry] of list.entries()) {
    const url = typeof entry === "string" && ORIGIN.test(entry)
      ? parseUrl(entry)
      : undefined;
    // A host with a `*` is valid to the URL parser and trusted as spelt: it
    // would match no host a wildcard means, and fail without a word.
    const why = url === undefined
      ? `give an origin such as "${EXAMPLE_ORIGIN}", with no path, query or credentials`
      : url.hostname.includes("*")
      ? "a wildcard matches no host here; list each origin"
      : undefined;
    if (why === undefined) origins.add(url!.origin);
    else {
      issues.push({
        path: `/trustedOrigins/${index}`,
        message: `Cannot trust ${quoted(entry)}: ${why}`,
      });
    }
  }
  return issues;
}

/**
 * A refused entry as its message may show it: without a URL's userinfo,
 * query and fragment. These may be spelt without `://` too, where
 * {@linkcode redactUrls} finds no URL (the URL parser reads
 * `https:user:pw@host` as `https://user:pw@host/`), and a password may
 * hold a raw `?` or `#`, which redaction takes for the start of a query
 * or fragment, keeping what comes before it: an entry with an `@`, or with
 * a `?` or `#` left after redaction, is named, not quoted.
 */
function quoted(entry: unknown): string {
  if (typeof entry !== "string") return describeValue(entry);
  const text = redactUrls(entry);
  return entry.includes("@") || /[?#](?!…)/.test(text)
    ? "an entry with credentials, a query or a fragment"
    : describeValue(text);
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

const EXAMPLE_ORIGIN = "https://cdn.example.com";
const ORIGIN = /^https?:\/\/[^\s/?#@\\]+\/?$/i;
