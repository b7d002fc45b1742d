// Types at scale: endpoints with many parameters, and endpoints that are
// unions of literals. Checked by `deno check` (the `check` task and the test
// run's type check); each `@ts-expect-error` fails the check when the line
// below it compiles.
import { assertEquals, assertRejects } from "@std/assert";
import createGrab, { GrabValidationError, paginate } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { rowSchema } from "./_types.ts";

// 60 `:name` segments: past 49, inference used to stop at error TS2589.
const SIXTY =
  "GET /s0/:p0/s1/:p1/s2/:p2/s3/:p3/s4/:p4/s5/:p5/s6/:p6/s7/:p7/s8/:p8/s9/:p9/s10/:p10/s11/:p11/s12/:p12/s13/:p13/s14/:p14/s15/:p15/s16/:p16/s17/:p17/s18/:p18/s19/:p19/s20/:p20/s21/:p21/s22/:p22/s23/:p23/s24/:p24/s25/:p25/s26/:p26/s27/:p27/s28/:p28/s29/:p29/s30/:p30/s31/:p31/s32/:p32/s33/:p33/s34/:p34/s35/:p35/s36/:p36/s37/:p37/s38/:p38/s39/:p39/s40/:p40/s41/:p41/s42/:p42/s43/:p43/s44/:p44/s45/:p45/s46/:p46/s47/:p47/s48/:p48/s49/:p49/s50/:p50/s51/:p51/s52/:p52/s53/:p53/s54/:p54/s55/:p55/s56/:p56/s57/:p57/s58/:p58/s59/:p59" as const;
const ALL = {
  p0: 0,
  p1: 1,
  p2: 2,
  p3: 3,
  p4: 4,
  p5: 5,
  p6: 6,
  p7: 7,
  p8: 8,
  p9: 9,
  p10: 10,
  p11: 11,
  p12: 12,
  p13: 13,
  p14: 14,
  p15: 15,
  p16: 16,
  p17: 17,
  p18: 18,
  p19: 19,
  p20: 20,
  p21: 21,
  p22: 22,
  p23: 23,
  p24: 24,
  p25: 25,
  p26: 26,
  p27: 27,
  p28: 28,
  p29: 29,
  p30: 30,
  p31: 31,
  p32: 32,
  p33: 33,
  p34: 34,
  p35: 35,
  p36: 36,
  p37: 37,
  p38: 38,
  p39: 39,
  p40: 40,
  p41: 41,
  p42: 42,
  p43: 43,
  p44: 44,
  p45: 45,
  p46: 46,
  p47: 47,
  p48: 48,
  p49: 49,
  p50: 50,
  p51: 51,
  p52: 52,
  p53: 53,
  p54: 54,
  p55: 55,
  p56: 56,
  p57: 57,
  p58: 58,
  p59: 59,
};
const { p59: _last, ...FEWER } = ALL;
// 60 backslashes, each a slash to the URL parser, before a parameter.
const SLASHED =
  "GET /a\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b\\b/:id" as const;

Deno.test("an endpoint with 60 path parameters infers and fills each", async () => {
  await using server = startServer((_request, seen) =>
    json({ path: seen.url.pathname })
  );
  const grab = createGrab(server.url);
  const [data, error] = await grab<{ path: string }>(SIXTY, { params: ALL });
  assertEquals(error, null);
  assertEquals(
    data?.path,
    "/s0/0/s1/1/s2/2/s3/3/s4/4/s5/5/s6/6/s7/7/s8/8/s9/9/s10/10/s11/11/s12/12/s13/13/s14/14/s15/15/s16/16/s17/17/s18/18/s19/19/s20/20/s21/21/s22/22/s23/23/s24/24/s25/25/s26/26/s27/27/s28/28/s29/29/s30/30/s31/31/s32/32/s33/33/s34/34/s35/35/s36/36/s37/37/s38/38/s39/39/s40/40/s41/41/s42/42/s43/43/s44/44/s45/45/s46/46/s47/47/s48/48/s49/49/s50/50/s51/51/s52/52/s53/53/s54/54/s55/55/s56/56/s57/57/s58/58/s59/59",
  );
});

// A union of endpoints whose `:name` segments differ: `params` cannot name
// one endpoint's parameter, as another refuses it, so each is given its own.
Deno.test("a union of endpoints with different parameters takes each one's params", async () => {
  await using server = startServer((_request, seen) =>
    json({ path: seen.url.pathname })
  );
  const grab = createGrab(server.url);
  for (const endpoint of ["GET /users/:id", "GET /teams"] as const) {
    const params = endpoint === "GET /teams" ? {} : { id: 7 };
    // No type argument: with one, TypeScript would not infer the endpoint.
    const [data, error] = await grab(endpoint, { params });
    assertEquals(error, null);
    assertEquals(data, {
      path: endpoint === "GET /teams" ? "/teams" : "/users/7",
    });
  }
});

// A schema with a response type that may be bytes (a union variable): the run
// time refuses it whenever it is, so it does not compile.
Deno.test("a schema with a response type that may be bytes does not compile", async () => {
  await using server = startServer(() => json({ id: 1 }));
  const grab = createGrab(server.url);
  const pick = (type: "json" | "bytes") => type;
  const type = pick("bytes");
  // @ts-expect-error: "bytes" is never checked by a schema
  const refused = grab("GET /x", { schema: rowSchema, responseType: type });
  await assertRejects(
    () => refused,
    GrabValidationError,
    'Cannot use the option "schema" with responseType "bytes"',
  );
  const pages = paginate(grab, "GET /x", {
    // @ts-expect-error: also in paginate
    schema: rowSchema,
    responseType: type,
  });
  await assertRejects(() => pages.next(), GrabValidationError);
  assertEquals(server.requests.length, 0);
  // One that is never bytes, a blob or a stream still takes a schema.
  const [row] = await grab("GET /x", {
    schema: rowSchema,
    responseType: pick("json") === "json" ? "json" : "text",
  });
  assertEquals(row, { id: 1 });
});

async function compileOnly(): Promise<void> {
  const grab = createGrab("https://api.example.com");
  // @ts-expect-error: the last of the 60 parameters is missing
  await grab(SIXTY, { params: FEWER });
  // @ts-expect-error: a misspelt one
  await grab(SIXTY, { params: { ...ALL, p60: 1 } });
  await grab(SLASHED, { params: { id: 1 } });
  // @ts-expect-error: "ud" is no name
  await grab(SLASHED, { params: { ud: 1 } });

  // A union whose members take the same names still checks them.
  const method = Math.random() < 0.5 ? "GET" : "DELETE";
  const same = `${method} /users/:id` as const;
  await grab(same, { params: { id: 1 } });
  // @ts-expect-error: misspelt for every member
  await grab(same, { params: { ud: 1 } });
  // @ts-expect-error: options with params are required for :id
  await grab(same);
  // One whose members differ takes any params, or none, as a string does.
  const either = method === "GET" ? "GET /users/:id" : "GET /teams/:team";
  await grab(either, { params: { id: 1 } });
  await grab(either, { params: { team: "a" } });
  paginate(grab, either, { params: { id: 1 } });
  const optional = method === "GET" ? "GET /users/:id" : "GET /teams";
  await grab(optional);
  paginate(grab, optional, null);
}
void compileOnly;
