import { randomUUID } from "node:crypto";
import {
  Capabilities,
  CURRENT_OPERATIONS,
  CURRENT_VERSION,
  Health,
  Organization,
  platformOperations,
  SCOPES,
} from "@crs/contract";
import { signApiKey, verifyApiKey } from "@crs/core";
import { beforeEach, describe, expect, it } from "vitest";
import {
  countEvents,
  countMatters,
  expectAuditRef,
  expectError,
  expectStandardHeaders,
  ISO_MILLIS,
} from "./support/expectations";
import { describeSecuritySuite } from "./support/security-suite";
import { TEST_SECRETS, useTestApp } from "./support/test-app";

const app = useTestApp();

describeSecuritySuite(platformOperations.health, { app, request: async () => ({}) });
describeSecuritySuite(platformOperations.capabilities, { app, request: async () => ({}) });
describeSecuritySuite(platformOperations.organization, { app, request: async () => ({}) });

describe("platform: behaviour", () => {
  // Keyless requests share 127.0.0.1's bucket; start each test with a full one.
  beforeEach(async () => {
    await app().sql`delete from rate_limit_buckets where bucket like 'ip:%'`;
  });

  it("answers health without a key, with every documented field", async () => {
    const response = await app().request("GET", "/v1/health");
    expectStandardHeaders(response);
    expect(response.status).toBe(200);
    expectAuditRef(response);
    const health = Health.parse(response.json);
    expect(health).toEqual({
      object: "health",
      status: "ok",
      version: CURRENT_VERSION,
      environment: "sandbox",
      store: { kind: "postgres", status: "ok" },
      timestamp: expect.stringMatching(ISO_MILLIS),
    });
  });

  it("answers health for a valid live key with the live environment", async () => {
    const live = await app().keyWithScopes(["events:read"]);
    const response = await app().request("GET", "/v1/health", { key: live.key });
    expect(response.status).toBe(200);
    expect(Health.parse(response.json).environment).toBe("live");
  });

  it("refuses health with a forged key: a key, if sent, must be valid", async () => {
    const owner = await app().mintKey();
    const verification = verifyApiKey(owner.key, TEST_SECRETS.keySigningSecret);
    if (!verification.ok) throw new Error("minted key does not verify");
    const forged = signApiKey("sandbox", verification.claims, "some-other-secret-that-is-long-enough-000");
    const response = await app().request("GET", "/v1/health", { key: forged });
    expectStandardHeaders(response);
    expectError(response, 401, "unauthenticated");
  });

  it("publishes the event-signing public key in the capabilities", async () => {
    const owner = await app().mintKey();
    const response = await app().request("GET", "/v1/capabilities", { key: owner.key });
    expect(response.status).toBe(200);
    expectAuditRef(response);
    const capabilities = Capabilities.parse(response.json);
    expect(capabilities.event_signing_key.algorithm).toBe("ed25519");
    expect(capabilities.event_signing_key.public_key).toMatch(/^[0-9a-f]{64}$/);
    expect(capabilities.scopes).toEqual([...SCOPES]);
    expect(capabilities.versions).toEqual(["2026-06-11", "2026-07-05"]);
    expect(capabilities.capabilities).toEqual(CURRENT_OPERATIONS.map(({ definition }) => definition.id));
  });

  it("describes a sandbox organization with its plan, rate limit and pinned version", async () => {
    const owner = await app().mintKey();
    const response = await app().request("GET", "/v1/organization", { key: owner.key });
    expect(response.status).toBe(200);
    expectAuditRef(response);
    expect(response.headers.get("svc-ratelimit-limit")).toBe("50");
    const organization = Organization.parse(response.json);
    expect(organization).toEqual({
      object: "organization",
      id: owner.organizationId,
      organization_id: owner.organizationId,
      name: expect.any(String),
      environment: "sandbox",
      plan: "sandbox",
      rate_limit: { per_second: 25, burst: 50 },
      api_version: "2026-07-05",
      created_at: expect.stringMatching(ISO_MILLIS),
      webhook_fallback_url: null,
    });
  });

  it("describes a live operator organization with the operator rate limit", async () => {
    const live = await app().keyWithScopes(["matters:read"], { organizationName: "Operator LLP" });
    const response = await app().request("GET", "/v1/organization", { key: live.key });
    expect(response.status).toBe(200);
    expect(response.headers.get("svc-ratelimit-limit")).toBe("200");
    expect(Organization.parse(response.json)).toMatchObject({
      id: live.organizationId,
      name: "Operator LLP",
      environment: "live",
      plan: "operator",
      rate_limit: { per_second: 100, burst: 200 },
    });
  });

  it("reports the key's pinned version as api_version even when a request asks for another", async () => {
    const owner = await app().mintKey();
    await app().request("GET", "/v1/organization", { key: owner.key }); // the first call pins the key
    const response = await app().request("GET", "/v1/organization", {
      key: owner.key,
      headers: { "svc-version": "2026-06-11" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("svc-version")).toBe("2026-06-11");
    expect(Organization.parse(response.json).api_version).toBe("2026-07-05");
  });

  it("pins a key at its first call and answers with the pin when Svc-Version is omitted", async () => {
    const owner = await app().mintKey();
    const [before] = await app().sql<{ pinned_version: string | null }[]>`
      select pinned_version from api_keys where id = ${owner.keyId}`;
    expect(before?.pinned_version).toBeNull();
    const response = await app().request("GET", "/v1/capabilities", { key: owner.key });
    expect(response.status).toBe(200);
    expect(response.headers.get("svc-version")).toBe("2026-07-05");
    const [after] = await app().sql<{ pinned_version: string | null }[]>`
      select pinned_version from api_keys where id = ${owner.keyId}`;
    expect(after?.pinned_version).toBe("2026-07-05");
  });

  it("echoes a known Svc-Version the request asks for", async () => {
    const owner = await app().mintKey();
    for (const version of ["2026-06-11", "2026-07-05"]) {
      const response = await app().request("GET", "/v1/capabilities", {
        key: owner.key,
        headers: { "svc-version": version },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("svc-version")).toBe(version);
    }
  });

  it.each(["2099-01-01", "latest", "2026-7-5"])(
    "returns 400 invalid_request naming Svc-Version for %j",
    async (version) => {
      const owner = await app().mintKey();
      const response = await app().request("GET", "/v1/organization", {
        key: owner.key,
        headers: { "svc-version": version },
      });
      expectStandardHeaders(response);
      const envelope = expectError(response, 400, "invalid_request");
      expect(envelope.error.param).toBe("Svc-Version");
      expect(envelope.error.message).toContain(version);
    },
  );

  it("answers an unknown route with the 404 envelope", async () => {
    const owner = await app().mintKey();
    for (const [method, path] of [
      ["GET", "/v1/nothing-here"],
      ["DELETE", "/v1/matters"],
      ["GET", "/"],
    ] as const) {
      const response = await app().request(method, path, { key: owner.key });
      const envelope = expectError(response, 404, "not_found");
      expect(envelope.error.message).toContain(path);
      expect(response.headers.get("svc-version")).toBe(CURRENT_VERSION);
      expectStandardHeaders(response);
    }
  });

  it("refuses, with 4xx and no write, bodies that would break a walker or lose a key: out-of-range numbers, deep nesting, unstorable text, __proto__", async () => {
    const owner = await app().mintKey();
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const cases: { rawBody: string; status: number; param: string }[] = [
      { rawBody: '{"name":"x","extra":1e400}', status: 400, param: "extra" },
      {
        rawBody: '{"name":"x","economics":{"platform_percentage":-1e999}}',
        status: 400,
        param: "economics.platform_percentage",
      },
      { rawBody: `{"name":"x","n":${deep}}`, status: 400, param: ["n", ...Array<string>(64).fill("0")].join(".") },
      { rawBody: '{"name":"x","extra":"\\ud800"}', status: 422, param: "extra" },
      { rawBody: '{"name":"x","\\u0000key":1}', status: 422, param: "\u0000key" },
      {
        rawBody: '{"name":"x","metadata":{"ok":1,"__proto__":{"admin":true}}}',
        status: 422,
        param: "metadata.__proto__",
      },
    ];
    for (const { rawBody, status, param } of cases) {
      const withAndWithoutKey: Record<string, string>[] = [{}, { "idempotency-key": `walker-${randomUUID()}` }];
      for (const headers of withAndWithoutKey) {
        const response = await app().request("POST", "/v1/matters", { key: owner.key, rawBody, headers });
        const envelope = expectError(response, status, "invalid_request");
        expect(envelope.error.param).toBe(param);
        expectStandardHeaders(response);
      }
    }
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
  });

  it("answers a URL the router cannot read with the envelope: malformed encoding 400, an over-long id 404", async () => {
    const owner = await app().mintKey();
    const malformed = await app().request("GET", "/v1/matters/%", { key: owner.key });
    expectError(malformed, 400, "invalid_request");
    expectStandardHeaders(malformed);
    const overLong = await app().request("GET", `/v1/matters/matter_${"0".repeat(200)}`, { key: owner.key });
    expectError(overLong, 404, "not_found");
    expectStandardHeaders(overLong);
  });

  it("accepts only JSON bodies: any other content type is 415 invalid_request", async () => {
    const owner = await app().mintKey();
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/vnd.api+json"]) {
      const response = await app().request("POST", "/v1/matters", {
        key: owner.key,
        rawBody: '{"name":"x"}',
        headers: { "content-type": contentType },
      });
      expectError(response, 415, "invalid_request");
    }
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
  });

  it("reads limit as digits only: 0x10 and 1e1 are 400", async () => {
    const owner = await app().mintKey();
    for (const limit of ["0x10", "1e1", "5.0"]) {
      const response = await app().request("GET", `/v1/matters?limit=${limit}`, { key: owner.key });
      expect(expectError(response, 400, "invalid_request").error.param).toBe("limit");
    }
  });

  it("refuses a missing key before it reads the body: 401, not 400, for unreadable JSON", async () => {
    const response = await app().request("POST", "/v1/matters", { rawBody: "{" });
    expectError(response, 401, "unauthenticated");
    expectStandardHeaders(response);
  });

  it("returns 400 invalid_request for a body that is not JSON, and writes nothing", async () => {
    const owner = await app().mintKey();
    for (const rawBody of ["{", '{"name": "x",}', "name=x", "'single'"]) {
      const response = await app().request("POST", "/v1/matters", { key: owner.key, rawBody });
      const envelope = expectError(response, 400, "invalid_request");
      expect(envelope.error.message).toMatch(/JSON/);
      expect(response.headers.get("svc-version")).toBe(CURRENT_VERSION);
      expectStandardHeaders(response);
    }
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
  });

  it("returns 413 invalid_request for a body over 1 MiB, and writes nothing", async () => {
    const owner = await app().mintKey();
    const notes = "n".repeat(1024 * 1024);
    const response = await app().request("POST", "/v1/matters", { key: owner.key, body: { name: "Big", notes } });
    const envelope = expectError(response, 413, "invalid_request");
    expect(envelope.error.message).toMatch(/1 MiB/);
    expect(response.headers.get("svc-version")).toBe(CURRENT_VERSION);
    expectStandardHeaders(response);
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
  });

  it.each([
    ["an array", "[1]"],
    ["a string", '"x"'],
    ["a number", "42"],
    ["true", "true"],
  ])("returns 422, never 5xx, for a JSON body that is %s", async (_label, rawBody) => {
    const owner = await app().mintKey();
    for (const [method, path] of [
      ["POST", "/v1/matters"],
      ["POST", "/api/sandbox-key"],
    ] as const) {
      const response = await app().request(method, path, { key: path === "/v1/matters" ? owner.key : null, rawBody });
      expectStandardHeaders(response);
      const envelope = expectError(response, 422, "invalid_request");
      expect(envelope.error.param).toBe("body");
    }
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
    expect(await countEvents(app().sql, owner.organizationId)).toBe(0);
  });

  it("treats a JSON null body as an empty object (422 naming the missing field)", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/matters", { key: owner.key, rawBody: "null" });
    const envelope = expectError(response, 422, "invalid_request");
    expect(envelope.error.details).toMatchObject({ missing: ["name"] });
  });

  it("refuses text a database cannot store with 422, never 5xx", async () => {
    const owner = await app().mintKey();
    const response = await app().request("POST", "/v1/matters", { key: owner.key, body: { name: "nul\u0000byte" } });
    expect(expectError(response, 422, "invalid_request").error.param).toBe("name");
    expect(await countMatters(app().sql, owner.organizationId)).toBe(0);
  });
});
