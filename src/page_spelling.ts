/**
 * One spelling of a page's URL, to tell the pages `paginate` has read, and
 * whether a `Link`'s `anchor` names the page it came with.
 *
 * @module
 */

/**
 * A page's URL as one spelling of the page: no fragment, and each escape in
 * its path and query in one form, so that `page[size]=10` and
 * `page%5Bsize%5D=10` (as grab writes a `query`), `a,b` and `a%2Cb`, `+` and
 * `%20` in a query, `/users/a@b` and `/users/a%40b` (as grab fills a path
 * parameter) are one page; and its query's parameters in one order, by name,
 * so that `?page=2&size=10` and `?size=10&page=2` (a server that writes its
 * links in an order of its own) are one page. Values of one name keep their
 * order: `?tag=a&tag=b` and `?tag=b&tag=a` may be two lists. Nothing is
 * decoded to text: two cursors of other bytes (`%80`, `%81`) that are no
 * UTF-8 stay two pages, and `%2F`, `%2B`, `%3B` in a path, `%2B`, `%26`, `%3D`,
 * `%3B` in a query stay escaped.
 */
export function samePage(href: string): string {
  const end = href.indexOf("#");
  const bare = end === -1 ? href : href.slice(0, end);
  const at = bare.indexOf("?");
  // The path starts at the first `/` after the scheme's `//`: the host and
  // port before it are written in one form by the URL parser.
  const start = bare.indexOf("/", bare.indexOf("//") + 2);
  const stop = at === -1 ? bare.length : at;
  const path = start === -1 || start > stop
    ? bare.slice(0, stop)
    : bare.slice(0, start) + oneForm(bare.slice(start, stop), PATH_BARE);
  if (at === -1) return path;
  const query = oneForm(bare.slice(at + 1), QUERY_BARE, "%20");
  if (query === "") return path;
  // A stable sort: values of one name keep their order.
  const pairs = query.split("&").sort((a, b) => {
    const [x, y] = [nameOf(a), nameOf(b)];
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return `${path}?${pairs.join("&")}`;
}

/** Each escape of a character that means the same bare, bare; others in upper case. */
function oneForm(text: string, same: RegExp, plus = "+"): string {
  return text.replace(ESCAPE, (escape) => {
    if (escape === "+") return plus;
    const char = String.fromCharCode(parseInt(escape.slice(1), 16));
    return same.test(char) ? char : escape.toUpperCase();
  });
}

function nameOf(pair: string): string {
  const at = pair.indexOf("=");
  return at === -1 ? pair : pair.slice(0, at);
}

const ESCAPE = /\+|%[0-9A-Fa-f]{2}/g;
// What a query may carry unescaped with the same meaning either way.
const QUERY_BARE = /^[\w\-.~[\],:@!$'()*/?]$/;
// What a path may: not `/`, nor `;` (which some servers read as the start
// of a segment's parameters), nor `+` (a space to some), nor `?` and `#`,
// which end it.
const PATH_BARE = /^[\w\-.~[\],:@!$'()*&=]$/;
