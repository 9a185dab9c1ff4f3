import { Organization, platformOperations, SandboxKey } from "@crs/contract";
import { verifyApiKey } from "@crs/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAuditRef, expectError, expectStandardHeaders } from "./support/expectations";
import { createMatter } from "./support/fixtures";
import { describeSecuritySuite } from "./support/security-suite";
import { PUBLIC_BASE_URL, startTestApp, TEST_SECRETS, type TestApp, useTestApp } from "./support/test-app";

const app = useTestApp();

async function mintOverHttp(target: TestApp = app()) {
  const response = await target.request("POST", "/api/sandbox-key", { body: {} });
  expectStandardHeaders(response);
  return response;
}

// Minting over HTTP is limited per address: this file mints at most a handful of keys through
// this app; the limit itself is tested on an app of its own.
describeSecuritySuite(platformOperations.mintSandboxKey, {
  app,
  request: async () => ({ body: {} }),
});

describe("sandbox key minting: behaviour", () => {
  it("mints a sandbox key without an Authorization header, with every documented field", async () => {
    const response = await mintOverHttp();
    expect(response.status).toBe(201);
    expectAuditRef(response);
    const minted = SandboxKey.parse(response.json);
    expect(minted).toEqual({
      object: "sandbox_key",
      key: expect.stringMatching(/^svc_test_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/),
      key_id: expect.stringMatching(/^key_[0-9a-z]{26}$/),
      organization_id: expect.stringMatching(/^org_[0-9a-z]{26}$/),
      environment: "sandbox",
      scope: "sandbox:read sandbox:write",
      base_url: PUBLIC_BASE_URL,
      rate_limit: expect.stringContaining("25"),
      note: expect.stringMatching(/once/),
      docs: expect.stringMatching(/^https?:\/\//),
    });
    // The key is a signed token naming its own key id and organization; nothing about it is stored.
    const verification = verifyApiKey(minted.key, TEST_SECRETS.keySigningSecret);
    expect(verification).toMatchObject({
      ok: true,
      kind: "sandbox",
      claims: { kid: minted.key_id, org: minted.organization_id, env: "sandbox" },
    });
    const stored = await app().sql`select * from api_keys where id = ${minted.key_id}`;
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(minted.key.split(".")[1]);
  });

  it("mints a key that works at once, on its own new sandbox organization", async () => {
    const first = SandboxKey.parse((await mintOverHttp()).json);
    const second = SandboxKey.parse((await mintOverHttp()).json);
    expect(second.organization_id).not.toBe(first.organization_id);

    const organization = await app().request("GET", "/v1/organization", { key: first.key });
    expect(organization.status).toBe(200);
    expect(Organization.parse(organization.json)).toMatchObject({
      id: first.organization_id,
      environment: "sandbox",
      plan: "sandbox",
    });
    // The sandbox grant carries every per-operation scope: it can write and read matters and events.
    const owner = {
      key: first.key,
      keyId: first.key_id,
      organizationId: first.organization_id,
      environment: "sandbox",
    } as const;
    const { matter } = await createMatter(app(), owner);
    expect(matter.organization_id).toBe(first.organization_id);
    for (const path of ["/v1/capabilities", "/v1/events", "/v1/events/verify-chain", `/v1/matters/${matter.id}`]) {
      expect((await app().request("GET", path, { key: first.key })).status).toBe(200);
    }
  });

  it("ignores unknown fields in the mint body", async () => {
    const response = await app().request("POST", "/api/sandbox-key", {
      body: { plan: "operator", scopes: ["operator:write"] },
    });
    expect(response.status).toBe(201);
    const minted = SandboxKey.parse(response.json);
    const verification = verifyApiKey(minted.key, TEST_SECRETS.keySigningSecret);
    expect(verification.ok && verification.claims.grants).toEqual(["preset:sandbox"]);
  });
});

describe("sandbox key minting: the per-address limit", () => {
  let fresh: TestApp;

  beforeAll(async () => {
    fresh = await startTestApp();
  });

  afterAll(async () => {
    await fresh?.close();
  });

  it("refuses the 11th mint within a minute from one address with 429 rate_limited and Retry-After", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const response = await mintOverHttp(fresh);
      statuses.push(response.status);
      expect(response.headers.get("svc-ratelimit-limit")).toBe("10");
      expect(response.headers.get("svc-ratelimit-remaining")).toBe(String(9 - i));
    }
    expect(statuses).toEqual(Array(10).fill(201));
    const [{ organizations } = { organizations: -1 }] = await fresh.sql<{ organizations: number }[]>`
      select count(*)::int as organizations from organizations`;
    expect(organizations).toBe(10);

    const refused = await mintOverHttp(fresh);
    const envelope = expectError(refused, 429, "rate_limited");
    expect(envelope.error.message).toMatch(/retry/i);
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get("svc-ratelimit-remaining")).toBe("0");
    const [{ after } = { after: -1 }] = await fresh.sql<{ after: number }[]>`
      select count(*)::int as after from organizations`;
    expect(after).toBe(10);

    // Minting has its own bucket: keys already minted keep working.
    const minted = await fresh.mintKey();
    expect((await fresh.request("GET", "/v1/organization", { key: minted.key })).status).toBe(200);

    // ...and a key in hand does not buy more organizations: minting with one still draws on the IP's mint bucket.
    const withKey = await fresh.request("POST", "/api/sandbox-key", { key: minted.key, body: {} });
    expectError(withKey, 429, "rate_limited");
    expect(withKey.headers.get("svc-ratelimit-limit")).toBe("10");
  });
});
