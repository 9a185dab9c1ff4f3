import { CURRENT_OPERATIONS, docUrlFor, ERROR_CODES, type ErrorCode } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import { buildRestApp } from "@crs/rest/app";
import { errorHeadingAnchors } from "@crs/rest/docs/errors-section";
import { headingSlugGenerator } from "@crs/rest/docs/register-docs";
import { createServiceDeps } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SECRETS = {
  keySigningSecret: "docs-integration-test-key-signing-secret-0001",
  eventSigningSeed: "6b".repeat(32),
  webhookSecretKey: "d4".repeat(32),
};
const BASE_URL = "http://127.0.0.1:3000";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createServiceDeps>;
let app: FastifyInstance;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createServiceDeps({ databaseUrl: database.url, secrets: SECRETS, publicBaseUrl: BASE_URL, poolSize: 2 });
  app = await buildRestApp({ deps, logLevel: "silent" });
  await app.ready();
});

afterAll(async () => {
  await app?.close();
  await deps?.close();
  await database?.drop();
});

/** GET, following same-origin redirects the way a browser would. */
async function get(
  path: string,
): Promise<{ url: string; status: number; type: string; body: string; headers: Record<string, unknown> }> {
  let url = path;
  for (let hops = 0; hops < 5; hops++) {
    const response = await app.inject({ method: "GET", url });
    const location = response.headers.location;
    if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === "string") {
      url = new URL(location, `http://local${url}`).pathname;
      continue;
    }
    return {
      url,
      status: response.statusCode,
      type: String(response.headers["content-type"] ?? ""),
      body: response.body,
      headers: response.headers,
    };
  }
  throw new Error(`too many redirects from ${path}`);
}

/** Every value of `attribute` on `tag` elements in the HTML. */
function attributeValues(html: string, tag: string, attribute: string): string[] {
  const values: string[] = [];
  for (const element of html.matchAll(new RegExp(`<${tag}\\b[^>]*>`, "gi"))) {
    const value = new RegExp(`\\b${attribute}\\s*=\\s*["']([^"']*)["']`, "i").exec(element[0])?.[1];
    if (value !== undefined) values.push(value);
  }
  return values;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function collectRefs(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === "$ref" && typeof child === "string") into.push(child);
      else collectRefs(child, into);
    }
  }
  return into;
}

describe("GET /docs (offline API reference)", () => {
  it("redirects to /docs/ and serves HTML whose scripts and stylesheets are all local", async () => {
    const first = await app.inject({ method: "GET", url: "/docs" });
    expect(first.statusCode).toBe(301);
    expect(first.headers.location).toBe("/docs/");

    const page = await get("/docs");
    expect(page.url).toBe("/docs/");
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);

    const scripts = attributeValues(page.body, "script", "src");
    const stylesheets = attributeValues(page.body, "link", "href");
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of [...scripts, ...stylesheets]) {
      expect(src, `asset ${src}`).not.toMatch(/^(https?:)?\/\//i);
      expect(new URL(src, `${BASE_URL}${page.url}`).origin).toBe(BASE_URL);
    }
    // Nothing in the page itself names another host; the document is fetched relative to the page.
    expect(page.body).not.toMatch(/https?:\/\//i);
    expect(page.body).toContain('"withDefaultFonts": false');
    expect(page.body).toContain('"url": "./openapi.json"');
    expect(page.body).not.toContain("proxyUrl");
    expect(page.body).toMatch(/"agent":\s*\{\s*"disabled": true\s*\}/);
  });

  it("serves the script the page references, from this server", async () => {
    const page = await get("/docs/");
    const [src] = attributeValues(page.body, "script", "src");
    expect(src).toBeDefined();
    const script = await get(new URL(src ?? "", `http://local${page.url}`).pathname);
    expect(script.url).toBe("/docs/js/scalar.js");
    expect(script.status).toBe(200);
    expect(script.type).toMatch(/javascript/);
    expect(script.body.length).toBeGreaterThan(1_000_000);
  });

  it("renders an Errors section with an entry for every code, anchored where doc_url points", async () => {
    const document = await get("/docs/openapi.json");
    expect(document.status).toBe(200);
    const parsed = JSON.parse(document.body) as { info?: { description?: string } };
    const description = parsed.info?.description ?? "";
    expect(description).toMatch(/^## Errors$/m);

    const page = (await get("/docs/")).body;
    const toId = headingSlugGenerator(errorHeadingAnchors());
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const { status, type } = ERROR_CODES[code];
      expect(description, code).toMatch(new RegExp(`^### ${code}$`, "m"));
      expect(description, code).toContain(`\`${type}\``);
      expect(description, code).toContain(String(status));
      // Scalar ids a heading by this generator (shipped in the page) and drops the document slug
      // ("api/") from the URL hash, so /docs#errors-<code> lands on the heading.
      const anchor = docUrlFor(code).split("#")[1] ?? "";
      expect(anchor).toMatch(/^errors-[a-z-]+$/);
      expect(toId({ slug: code })).toBe(`api/${anchor}`);
      expect(page, code).toContain(`"${code}":"api/${anchor}"`);
    }
  });
});

describe("GET /v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document with every operation, its method and its scope", async () => {
    const response = await get("/v1/openapi.json");
    expect(response.status).toBe(200);
    expect(response.type).toMatch(/^application\/json/);
    expect(response.headers["svc-ratelimit-limit"], "an API answer carries the rate-limit headers").toBe("50");
    const document = JSON.parse(response.body) as Json;
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(isObject(document.info)).toBe(true);
    const info = document.info as Json;
    expect(typeof info.title).toBe("string");
    expect(typeof info.version).toBe("string");
    expect(isObject(document.paths)).toBe(true);
    const paths = document.paths as Record<string, Json>;

    const served = CURRENT_OPERATIONS.flatMap(({ definition }) => (definition.path ? [definition] : []));
    expect(served.length).toBeGreaterThan(0);
    for (const op of served) {
      const item = paths[op.path as string];
      expect(item, `${op.method} ${op.path}`).toBeDefined();
      const operation = item?.[op.method.toLowerCase()];
      expect(isObject(operation), `${op.method} ${op.path}`).toBe(true);
      expect(operation).toMatchObject({ operationId: op.id, "x-scope": op.scope });
      expect(Object.keys((operation as Json).responses as Json)).toContain(String(op.successStatus));
    }
    // The export download REST serves beside the operations: a file, in each format an export has.
    const download = paths["/v1/exports/{file}"]?.get as Json;
    expect(download).toMatchObject({ operationId: "downloadPacketExport", "x-scope": "packets:read" });
    const fileTypes = Object.keys(((download.responses as Json)["200"] as Json).content as Json);
    expect(fileTypes.sort()).toEqual(["application/json", "application/pdf", "application/zip"]);
  });

  it("gives every request body an example the body's own schema accepts, also in the document /docs renders", async () => {
    const served = JSON.parse((await get("/v1/openapi.json")).body) as Json;
    const rendered = JSON.parse((await get("/docs/openapi.json")).body) as Json;
    const withBody = CURRENT_OPERATIONS.flatMap(({ definition }) =>
      definition.path && definition.body ? [definition] : [],
    );
    expect(withBody.map((op) => op.id)).toEqual(
      expect.arrayContaining(["createParty", "updateParty", "intakeJudgment", "updateJudgment", "validateJudgment"]),
    );
    for (const document of [served, rendered]) {
      for (const op of withBody) {
        const operation = ((document.paths as Record<string, Json>)[op.path as string] as Json)[
          op.method.toLowerCase()
        ];
        const media = (((operation as Json).requestBody as Json).content as Json)["application/json"] as Json;
        expect(media.example, `${op.method} ${op.path}`).toBeDefined();
        const parsed = op.body?.safeParse(media.example);
        expect(parsed?.success, `${op.method} ${op.path}: ${JSON.stringify(parsed?.error?.issues)}`).toBe(true);
      }
    }
  });

  it("describes the error envelope and the audit_ref every success body carries", async () => {
    const document = JSON.parse((await get("/v1/openapi.json")).body) as Json;
    const schemas = (document.components as Json).schemas as Record<string, Json>;
    const error = schemas.Error as Json;
    expect(error.$ref, "Error must be a schema, not a reference to itself").toBeUndefined();
    expect(Object.keys(error.properties as Json).sort()).toEqual(["audit_ref", "error"]);
    const inner = (error.properties as Record<string, Json>).error as Json;
    expect(Object.keys(inner.properties as Json).sort()).toEqual(
      ["code", "details", "doc_url", "message", "param", "request_id", "type"].sort(),
    );
    const matters = (document.paths as Record<string, Json>)["/v1/matters"] as Json;
    const created = (matters.post as Json).responses as Record<string, Json>;
    expect(JSON.stringify(created["201"])).toContain('"audit_ref"');
    expect(Object.keys(created)).toEqual(
      expect.arrayContaining(["400", "401", "403", "409", "413", "415", "422", "429"]),
    );
  });

  it("documents the 413, 415 and 422 of every write, and the 404 of every write whose body names a matter", async () => {
    const paths = JSON.parse((await get("/v1/openapi.json")).body).paths as Record<string, Json>;
    const writes = CURRENT_OPERATIONS.flatMap(({ definition }) =>
      definition.path && definition.method !== "GET" ? [definition] : [],
    );
    for (const op of writes) {
      const statuses = Object.keys(
        ((paths[op.path as string] as Json)[op.method.toLowerCase()] as Json).responses as Json,
      );
      expect(statuses, `${op.method} ${op.path}`).toEqual(expect.arrayContaining(["413", "415", "422"]));
      const fields = (op.body as { shape?: Record<string, unknown> } | undefined)?.shape ?? {};
      if ("matter_id" in fields) expect(statuses, `${op.method} ${op.path}`).toContain("404");
    }
  });

  it("has every $ref resolve to an existing components.schemas entry", async () => {
    const document = JSON.parse((await get("/v1/openapi.json")).body) as Json;
    const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Json;
    const refs = collectRefs(document);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      expect(ref).toMatch(/^#\/components\/schemas\/[^/]+$/);
      const name = ref.slice("#/components/schemas/".length);
      expect(Object.hasOwn(schemas, name), ref).toBe(true);
    }
  });

  it("uses no oneOf, which the /docs reference (Scalar) reports as a document validation error", async () => {
    const text = (await get("/v1/openapi.json")).body;
    // Unions are written as anyOf (z.union); a z.discriminatedUnion would appear here as oneOf.
    expect(text).toContain('"anyOf"');
    expect(text).not.toContain('"oneOf"');
  });
});
