import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { v, z } from "../_npm.ts";
import createGrab, { GrabTransportError, jsonApiOf } from "../../mod.ts";
import { json, startServer } from "../_server.ts";

const MEDIA = "application/vnd.api+json";

function document(body: unknown): Response {
  return json(body, { headers: { "content-type": MEDIA } });
}

const author = {
  type: "people",
  id: "9",
  attributes: { first_name: "Dan" },
  links: { self: "/people/9" },
};

function article(id: string) {
  return {
    type: "articles",
    id,
    attributes: { title: `Article ${id}`, tags: [{ name: "x" }] },
    relationships: {
      author: {
        data: { type: "people", id: "9" },
        links: { related: `/articles/${id}/author` },
      },
    },
    links: { self: `/articles/${id}` },
    meta: { views: Number(id) * 10 },
  };
}

const Person = z.object({ id: z.string(), firstName: z.string() });
const Article = z.object({
  type: z.literal("articles"),
  id: z.string(),
  title: z.string(),
  author: Person,
});

Deno.test("a schema in JSON:API mode", async (t) => {
  await using server = startServer({
    "/articles/1": () =>
      document({ data: article("1"), included: [author], meta: { n: 1 } }),
    "/articles": () =>
      document({ data: [article("1"), article("2")], included: [author] }),
  });
  const grab = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    retry: 0,
  });

  await t.step(
    "checks the denormalised data, in the caller's casing",
    async () => {
      const [data, error, meta] = await grab("GET /articles/1", {
        schema: Article,
      });
      assertStrictEquals(error, null);
      assertEquals(data, {
        type: "articles",
        id: "1",
        title: "Article 1",
        author: { id: "9", firstName: "Dan" },
      });
      assertEquals(meta.meta, { n: 1 });
    },
  );

  await t.step("jsonApiOf reads the schema's output (zod)", async () => {
    const [data] = await grab("GET /articles/1", { schema: Article });
    assert(data !== null);
    const info = jsonApiOf(data);
    assertEquals(info?.links, { self: "/articles/1" });
    assertEquals(info?.meta, { views: 10 });
    assertEquals(info?.relationships.author?.links, {
      related: "/articles/1/author",
    });
    assertEquals(jsonApiOf(data.author)?.links, { self: "/people/9" });
  });

  await t.step(
    "jsonApiOf reads each resource of a list (valibot)",
    async () => {
      const schema = v.array(
        v.object({
          id: v.pipe(v.string(), v.transform(Number)),
          author: v.object({ type: v.string(), firstName: v.string() }),
        }),
      );
      const [data, error] = await grab("GET /articles", { schema });
      assertStrictEquals(error, null);
      assertEquals(data?.map((item) => item.id), [1, 2]);
      assertEquals(data?.map((item) => jsonApiOf(item)?.meta), [
        { views: 10 },
        { views: 20 },
      ]);
      // One author in the document, two objects in the output: both read it.
      for (const item of data ?? []) {
        assertEquals(jsonApiOf(item.author)?.links, { self: "/people/9" });
      }
    },
  );

  await t.step(
    "an object that is not the resource at its place gets nothing",
    async () => {
      const schemas: z.ZodType[] = [
        // A wrapper around the resource: no type or id of its own.
        Article.transform((value) => ({ article: value })),
        // The author put where the article was.
        Article.transform((value) => ({ type: "people", id: value.author.id })),
        // No type or id kept: nothing says which resource it is.
        z.object({ title: z.string() }),
      ];
      for (const schema of schemas) {
        const [data, error] = await grab("GET /articles/1", { schema });
        assertStrictEquals(error, null);
        assertStrictEquals(jsonApiOf(data as object), undefined);
      }
    },
  );

  await t.step(
    "an item of a list that keeps only its type gets nothing",
    async () => {
      // The list filtered or sorted by the schema: a type says not which
      // article of the list an item is.
      const Item = z.object({ type: z.literal("articles"), title: z.string() });
      const schemas = [
        z.array(Item).transform((list) =>
          list.filter((item) => item.title !== "Article 1")
        ),
        z.array(Item).transform((list) => list.reverse()),
      ];
      for (const schema of schemas) {
        const [data, error] = await grab("GET /articles", { schema });
        assertStrictEquals(error, null);
        assertEquals(data?.[0]?.title, "Article 2");
        assertStrictEquals(jsonApiOf(data![0]!), undefined);
      }
    },
  );

  await t.step(
    "an item of a list that keeps its id keeps its links when moved",
    async () => {
      // The id says which article an item is, wherever the schema put it.
      const Item = z.object({ id: z.string(), title: z.string() });
      const schemas: z.ZodType<{ id: string | number; title: string }[]>[] = [
        z.array(Item).transform((list) =>
          list.filter((item) => item.title !== "Article 1")
        ),
        z.array(Item).transform((list) => list.reverse()),
        z.array(Item.extend({ id: z.coerce.number() })).transform((list) =>
          list.reverse()
        ),
      ];
      for (const schema of schemas) {
        const [data, error] = await grab("GET /articles", { schema });
        assertStrictEquals(error, null);
        assertEquals(data?.[0]?.title, "Article 2");
        assertEquals(jsonApiOf(data![0]!)?.links, { self: "/articles/2" });
        assertEquals(jsonApiOf(data![0]!)?.meta, { views: 20 });
        if (data!.length > 1) {
          assertEquals(jsonApiOf(data![1]!)?.links, { self: "/articles/1" });
        }
      }
    },
  );

  await t.step(
    "each item of a list of 200,000 resources keeps its links",
    async () => {
      const count = 200_000;
      const data = Array.from({ length: count }, (_, at) => ({
        type: "a",
        id: String(at),
        links: { self: `/a/${at}` },
      }));
      await using many = startServer({ "/many": () => document({ data }) });
      // As zod and valibot do: a new object for each item.
      const schema = {
        "~standard": {
          version: 1 as const,
          vendor: "copying",
          validate: (value: unknown) => ({
            value: (value as { id: string }[]).map(({ id }) => ({ id })),
          }),
        },
      };
      const [list, error] = await grab(`GET ${many.url}/many`, { schema });
      assertStrictEquals(error, null);
      assertEquals(list?.length, count);
      assertEquals(jsonApiOf(list![0]!)?.links, { self: "/a/0" });
      assertEquals(jsonApiOf(list![count - 1]!)?.links, {
        self: `/a/${count - 1}`,
      });
    },
  );

  await t.step(
    "a list whose resources share an id is matched in one look-up per item",
    async () => {
      // 1,000 resources of as many types, all with id "1", and a repeat of
      // one of them: a schema that drops the first item moves every other.
      const count = 1_000;
      const data = Array.from({ length: count }, (_, at) => ({
        type: `t${at}`,
        id: "1",
        links: { self: `/t${at}/1` },
      }));
      data.push({ type: "t1", id: "1", links: { self: "/t1/1" } });
      await using shared = startServer({ "/shared": () => document({ data }) });
      // Each item of the output counts what is read of it.
      let reads = 0;
      const counted = (item: object): object =>
        new Proxy(item, {
          get(target, key, receiver) {
            reads++;
            return Reflect.get(target, key, receiver);
          },
          getOwnPropertyDescriptor(target, key) {
            reads++;
            return Reflect.getOwnPropertyDescriptor(target, key);
          },
          ownKeys(target) {
            reads++;
            return Reflect.ownKeys(target);
          },
        });
      // As zod and valibot do, a new object for each item; the first left out.
      const schema = {
        "~standard": {
          version: 1 as const,
          vendor: "copying",
          validate: (value: unknown) => ({
            value: (value as { type: string; id: string }[]).slice(1).map((
              { type, id },
            ) => counted({ type, id })),
          }),
        },
      };
      const [list, error] = await grab(`GET ${shared.url}/shared`, { schema });
      assertStrictEquals(error, null);
      assertEquals(list?.length, count);
      assertEquals(jsonApiOf(list![0]!)?.links, { self: "/t1/1" });
      assertEquals(jsonApiOf(list![count - 2]!)?.links, {
        self: `/t${count - 1}/1`,
      });
      // The repeat is the same resource as t1's first occurrence.
      assertEquals(jsonApiOf(list![count - 1]!)?.links, { self: "/t1/1" });
      assert(reads < 30 * count, `${reads} reads for ${count} items`);
    },
  );

  await t.step("a frozen output is left as it is", async () => {
    const schema = Article.transform((value) => Object.freeze({ ...value }));
    const [data, error] = await grab("GET /articles/1", { schema });
    assertStrictEquals(error, null);
    assert(Object.isFrozen(data));
    assertEquals(data?.id, "1");
    // It takes no link, though a private field could be added to it.
    assertStrictEquals(jsonApiOf(data!), undefined);
  });

  await t.step(
    "an output whose own code throws is still the data",
    async () => {
      const trap = () => {
        throw new Error("trap");
      };
      const schema = Article.transform((value) =>
        new Proxy(value, { ownKeys: trap, isExtensible: trap })
      );
      const [data, error] = await grab("GET /articles/1", { schema });
      assertStrictEquals(error, null);
      assertEquals(data?.title, "Article 1");
    },
  );

  await t.step("a failing schema is kind schema", async () => {
    const [data, error] = await grab("GET /articles/1", {
      schema: z.object({ id: z.number() }),
    });
    assertStrictEquals(data, null);
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "schema");
  });
});
