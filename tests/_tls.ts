/**
 * The TLS fixtures (see `_fixtures/tls/README.md`): their PEM text, and a
 * `fetch` through a Deno client that trusts their authority.
 *
 * @module
 */

const FIXTURES = new URL("./_fixtures/tls/", import.meta.url);

/** The PEM text of the fixture file `name` (`server.crt`, `ca.crt`, …). */
export function pem(name: string): string {
  return Deno.readTextFileSync(new URL(name, FIXTURES));
}

/** A `fetch` through a Deno client that trusts the fixtures' CA. */
export function trustingFetch(): typeof fetch & Disposable {
  const client = Deno.createHttpClient({ caCerts: [pem("ca.crt")] });
  const trusting = (input: RequestInfo | URL, init?: RequestInit) =>
    fetch(input, { ...init, client });
  return Object.assign(trusting, {
    [Symbol.dispose]: () => client.close(),
  });
}
