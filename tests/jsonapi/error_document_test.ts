import { assertEquals, assertStrictEquals } from "@std/assert";
import {
  errorDocumentMessage,
  parseErrorDocument,
} from "../../src/jsonapi/error_document.ts";

// In the spirit of the JSON:API 1.0 examples: 422 with a pointer, numeric status.
const V1_0 = {
  jsonapi: { version: "1.0" },
  errors: [
    {
      status: "422",
      source: { pointer: "/data/attributes/first-name" },
      title: "Invalid Attribute",
      detail: "First name must contain at least two characters.",
    },
    {
      id: 42,
      status: 422,
      code: "123",
      source: { pointer: "/data/relationships/home~1town~0x/data" },
      title: "Value is too short",
      links: { about: "https://api.example.com/errors/123" },
    },
  ],
};

// In the spirit of the JSON:API 1.1 examples: links.type, source.header and
// source.parameter, meta.
const V1_1 = {
  jsonapi: { version: "1.1" },
  errors: [
    {
      id: "e1",
      status: "403",
      title: "Forbidden",
      detail: "Editing secret powers is not authorized on Sundays.",
      links: {
        about: { href: "https://api.example.com/errors/e1", title: "e1" },
        type: "https://api.example.com/problems/forbidden",
      },
      source: { header: "Authorization" },
      meta: { day: "Sunday" },
    },
    {
      status: "400",
      title: "Invalid Query Parameter",
      detail: "The resource does not have an `auther` relationship path.",
      source: { parameter: "include" },
    },
  ],
  meta: { request: "r1" },
};

Deno.test("parseErrorDocument()", async (t) => {
  await t.step("reads a JSON:API 1.0 error document", () => {
    assertEquals(parseErrorDocument(V1_0), [
      {
        status: "422",
        title: "Invalid Attribute",
        detail: "First name must contain at least two characters.",
        source: { pointer: "/data/attributes/first-name" },
        field: "first-name",
      },
      {
        id: "42",
        status: "422",
        code: "123",
        title: "Value is too short",
        links: { about: "https://api.example.com/errors/123" },
        source: { pointer: "/data/relationships/home~1town~0x/data" },
        field: "home/town~x",
      },
    ]);
  });

  await t.step("reads a JSON:API 1.1 error document", () => {
    // Every member is of the right type, so each error is kept as sent.
    assertEquals(parseErrorDocument(V1_1), V1_1.errors);
  });

  await t.step("converts field to the caller's casing", () => {
    const body = {
      errors: [
        { source: { pointer: "/data/attributes/first_name" } },
        { source: { pointer: "/data/attributes/home-address/post-code" } },
        { source: { pointer: "/data/relationships/main_author" } },
        { source: { pointer: "/data/attributes/__proto__" } },
        { source: { pointer: "/data" } },
        { source: { pointer: "/data/0/attributes/x" } },
        { source: { pointer: "/data/attributes/" } },
      ],
    };
    assertEquals(
      parseErrorDocument(body, { casing: "camelCase" })?.map((e) => e.field),
      [
        "firstName",
        "homeAddress",
        "mainAuthor",
        "__proto__",
        undefined,
        undefined,
        undefined,
      ],
    );
    assertEquals(
      parseErrorDocument(body, { casing: "kebab-case" })?.[0]?.field,
      "first-name",
    );
    assertEquals(parseErrorDocument(body)?.[0]?.field, "first_name");
  });

  await t.step("drops members of the wrong type", () => {
    const body = {
      errors: [{
        id: { x: 1 },
        status: NaN,
        code: 123,
        title: ["t"],
        detail: null,
        links: { about: 5, type: { title: "no href" }, self: "x" },
        source: { pointer: 1, parameter: "page", header: false, other: "x" },
        meta: "m",
        field: "injected",
        extra: "x",
      }, {
        links: "x",
        source: [],
        meta: [],
        status: 500,
        links2: {},
      }, {
        links: { about: null },
      }],
    };
    // From a response that says it is JSON:API: taken by its shape.
    assertEquals(parseErrorDocument(body, { declared: true }), [
      { source: { parameter: "page" } },
      { status: "500" },
      { links: { about: null } },
    ]);
  });

  const notErrorDocuments: [string, unknown][] = [
    ["a plain error object", { error: "x" }],
    ["errors of strings", { errors: ["x"] }],
    ["empty errors", { errors: [] }],
    ["errors beside data", { data: null, errors: [{ title: "x" }] }],
    ["errors that is an object", { errors: { title: "x" } }],
    ["a mixed errors array", { errors: [{ title: "x" }, null] }],
    ["an array", [{ title: "x" }]],
    ["text", "Bad Gateway"],
    ["null", null],
  ];
  for (const [name, body] of notErrorDocuments) {
    await t.step(`gives undefined for ${name}`, () => {
      assertStrictEquals(parseErrorDocument(body), undefined);
    });
  }
});

Deno.test("errorDocumentMessage()", async (t) => {
  await t.step("joins detail, else title, with a semicolon", () => {
    assertEquals(
      errorDocumentMessage(parseErrorDocument(V1_0)!),
      "First name must contain at least two characters.; Value is too short",
    );
    assertEquals(
      errorDocumentMessage(parseErrorDocument(V1_1)!),
      "Editing secret powers is not authorized on Sundays.; The resource does not have an `auther` relationship path.",
    );
  });

  await t.step(
    "skips errors without text and falls back on an empty detail",
    () => {
      assertEquals(
        errorDocumentMessage([{ code: "1" }, { detail: "", title: "T" }, {
          title: "",
        }, { detail: "D" }]),
        "T; D",
      );
    },
  );

  await t.step("gives undefined when no error has text", () => {
    assertStrictEquals(
      errorDocumentMessage([{ status: "500" }, {}]),
      undefined,
    );
    assertStrictEquals(errorDocumentMessage([]), undefined);
  });

  await t.step("redacts each text, and stops once past max", () => {
    const errors = [
      { detail: "see https://u:pw@api.test/a?token=s3cret" },
      { detail: "0123456789" },
      { detail: "never joined" },
    ];
    assertEquals(
      errorDocumentMessage(errors, 30),
      "see https://api.test/a?…; 0123456789",
    );
    assertEquals(
      errorDocumentMessage(errors),
      "see https://api.test/a?…; 0123456789; never joined",
    );
  });
});

Deno.test("parseErrorDocument() takes only JSON:API error documents", () => {
  // GitHub's 422 and a GraphQL error body have an `errors` array too.
  const github = {
    message: "Validation Failed",
    errors: [{ resource: "Issue", field: "title", code: "missing_field" }],
    "documentation_url": "https://docs.github.com/rest",
  };
  const graphql = { errors: [{ message: "Cannot query field" }] };
  const twitter = { errors: [{ code: 215, message: "Bad Authentication" }] };
  for (const body of [github, graphql, twitter]) {
    assertStrictEquals(parseErrorDocument(body), undefined);
  }
  // A response that says it is JSON:API is taken by its shape.
  assertEquals(parseErrorDocument(twitter, { declared: true }), [{}]);
  // Every member of an error object is optional: an empty one is one.
  assertEquals(parseErrorDocument({ errors: [{ status: "400" }, {}] }), [
    { status: "400" },
    {},
  ]);
  // An @-member and an extension's member may stand beside `errors`.
  assertEquals(
    parseErrorDocument({
      "@context": "https://schema.test",
      "version:id": "1",
      errors: [{ code: "missing_field" }],
    }),
    [{ code: "missing_field" }],
  );
});
