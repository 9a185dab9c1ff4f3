import {
  AssetMapLegacy,
  CURRENT_OPERATIONS,
  Health,
  JudgmentValidationLegacy,
  LEGACY_DEPRECATED_AT,
  LEGACY_OPERATIONS,
  LEGACY_VERSION,
  type LegacySuccessor,
  Matter,
  type OperationDefinition,
  SandboxKey,
} from "@crs/contract";
import { operationHash, tagHash } from "@crs/rest/docs/anchors";
import { beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  countEvents,
  countRows,
  ErrorEnvelope,
  expectAuditRef,
  expectError,
  expectStandardHeaders,
} from "./support/expectations";
import { createCase } from "./support/fixtures";
import { LEGACY_BASE_URL, PUBLIC_BASE_URL, type TestResponse, useTestApp } from "./support/test-app";

const SUNSET = new Date("2026-10-03T00:00:00Z");
let now = new Date("2026-09-01T12:00:00Z");
const app = useTestApp({
  clock: () => now,
  legacyWindow: { deprecatedAt: new Date(LEGACY_DEPRECATED_AT), sunset: SUNSET },
});
const WALLET = { chain: "synthetic:eth", address: "0x5eed00000000000000000000000000000000a11e" };

const insideWindow = () => {
  now = new Date(SUNSET.getTime() - 1);
};
const afterWindow = () => {
  now = new Date(SUNSET.getTime());
};

async function mintLegacyKey(): Promise<{ key: string; organizationId: string }> {
  const minted = await app().legacyRequest("POST", "/api/sandbox-key", { body: {} });
  expect(minted.status).toBe(201);
  const { key, organization_id } = SandboxKey.parse(minted.json);
  return { key, organizationId: organization_id };
}

function expectWindowHeaders(response: TestResponse, successor: string): void {
  expect(response.headers.get("deprecation")).toBe(`@${Date.parse(LEGACY_DEPRECATED_AT) / 1000}`);
  expect(response.headers.get("sunset")).toBe("Sat, 03 Oct 2026 00:00:00 GMT");
  const link = successor.replaceAll("{", "%7B").replaceAll("}", "%7D");
  expect(response.headers.get("link")).toBe(`<${link}>; rel="successor-version"`);
}

/** Where the reference documents a legacy operation's successor: its operation's entry, or its section. */
function successorDocUrl(successor: LegacySuccessor): string {
  if ("tag" in successor) return `${PUBLIC_BASE_URL}/docs#${tagHash(successor.tag)}`;
  const { definition } = CURRENT_OPERATIONS.find((op) => op.definition.id === successor.operation)!;
  return `${PUBLIC_BASE_URL}/docs#${operationHash(definition.tag, definition.method, definition.path!)}`;
}

/**
 * What a legacy operation's `successor-version` link names: its successor on the current listener,
 * with the path filled from the request's (the concrete placeholders), or its section of the reference.
 */
function successorLink(definition: OperationDefinition): string {
  const successor = definition.successor!;
  if ("tag" in successor) return `${PUBLIC_BASE_URL}/docs#${tagHash(successor.tag)}`;
  const target = CURRENT_OPERATIONS.find((op) => op.definition.id === successor.operation)!.definition;
  const values = [...definition.path!.matchAll(/\{(\w+)\}/g)].map((match) => concrete(`{${match[1]}}`));
  const names = [...target.path!.matchAll(/\{(\w+)\}/g)];
  if (values.length !== names.length) return successorDocUrl(successor);
  let index = 0;
  return `${PUBLIC_BASE_URL}${target.path!.replace(/\{\w+\}/g, () => values[index++]!)}`;
}

function expectNoWindowHeaders(response: TestResponse): void {
  for (const name of ["deprecation", "sunset", "link"]) expect(response.headers.get(name), name).toBeNull();
}

/** A 410 or 404 of the legacy listener: the envelope, with doc_url at the successor's entry. */
function expectLegacyError(response: TestResponse, status: 404 | 410, docUrl: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("svc-version")).toBe(LEGACY_VERSION);
  const envelope = ErrorEnvelope.parse(response.json);
  expect(envelope.error.code).toBe(status === 410 ? "endpoint_retired" : "not_found");
  expect(envelope.error.doc_url).toBe(docUrl);
  expect(envelope.audit_ref).toBe(response.headers.get("svc-request-id"));
  return envelope.error;
}

/** A documented path with its placeholders filled. */
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, "$1_0123456789abcdefghjkmnpqrs");

describe("the legacy (2026-06-11) listener inside its window", () => {
  beforeEach(async () => {
    insideWindow();
    await app().sql`delete from rate_limit_buckets where bucket like 'ip:%' or bucket like 'mint:%'`;
  });

  it("mints svc_legacy_test_ keys whose base_url is the legacy listener, with the window's headers", async () => {
    const response = await app().legacyRequest("POST", "/api/sandbox-key", { body: {} });
    expect(response.status).toBe(201);
    expectStandardHeaders(response);
    expect(response.headers.get("svc-version")).toBe(LEGACY_VERSION);
    expectWindowHeaders(response, `${PUBLIC_BASE_URL}/api/sandbox-key`);
    const minted = SandboxKey.parse(response.json);
    expect(minted.key.startsWith("svc_legacy_test_")).toBe(true);
    expect(minted.base_url).toBe(LEGACY_BASE_URL);
  });

  it("keeps the two kinds of keys apart: each listener refuses the other's", async () => {
    const legacyKey = (await mintLegacyKey()).key;
    const currentKey = (await app().mintKey()).key;
    const onCurrent = await app().request("GET", "/v1/matters", { key: legacyKey });
    expect(expectError(onCurrent, 401, "unauthenticated").error.message).toContain("legacy listener");
    const onLegacy = await app().legacyRequest("GET", "/v1/crypto/asset-map/map_0123456789abcdefghjkmnpqrs", {
      key: currentKey,
    });
    expect(onLegacy.status).toBe(401);
    expect(ErrorEnvelope.parse(onLegacy.json).error.message).toContain("svc_legacy_test_");
  });

  it("serves the current operations in their 2026-06-11 form on the same records, each answer pointing at its successor", async () => {
    const { key, organizationId } = await mintLegacyKey();
    const createdMatter = await app().legacyRequest("POST", "/v1/matters", {
      key,
      body: { name: "Acme Holdings v. Doe" },
    });
    expect(createdMatter.status).toBe(201);
    expectWindowHeaders(createdMatter, `${PUBLIC_BASE_URL}/v1/matters`);
    const matter = Matter.parse(createdMatter.json);
    const created = await app().legacyRequest("POST", "/v1/crypto/asset-map", {
      key,
      body: { matter_id: matter.id, wallets: [WALLET] },
    });
    expect(created.status).toBe(202);
    expectAuditRef(created);
    expect(created.headers.get("svc-version")).toBe(LEGACY_VERSION);
    expectWindowHeaders(created, `${PUBLIC_BASE_URL}/v1/crypto/asset-map`);
    const map = AssetMapLegacy.parse(created.json);
    expect(map.status).toBe("processing");
    const read = await app().legacyRequest("GET", `/v1/crypto/asset-map/${map.map_id}`, { key });
    expect(read.status).toBe(200);
    expectWindowHeaders(read, `${PUBLIC_BASE_URL}/v1/crypto/asset-map/${map.map_id}`);
    expect(AssetMapLegacy.parse(read.json).map_id).toBe(map.map_id);
    // The records are the current surface's own, in the legacy key's organization.
    const [row] = await app().sql<
      { organization_id: string }[]
    >`select organization_id from matters where id = ${matter.id}`;
    expect(row?.organization_id).toBe(organizationId);
    expect(await countRows(app().sql, "jobs", organizationId)).toBe(1);
  });

  it("answers in the 2026-06-11 shapes: a judgment's validation as the array of gates", async () => {
    const { key, organizationId } = await mintLegacyKey();
    const legacyApp = { ...app(), request: app().legacyRequest };
    const owner = { key, keyId: "", organizationId, environment: "sandbox" as const };
    const { judgment } = await createCase(legacyApp, owner);
    const response = await app().legacyRequest("POST", `/v1/judgments/${judgment.id}/validate`, { key, body: {} });
    expect(response.status).toBe(200);
    expect(response.headers.get("svc-version")).toBe(LEGACY_VERSION);
    expectWindowHeaders(response, `${PUBLIC_BASE_URL}/v1/judgments/${judgment.id}/validate`);
    const validation = JudgmentValidationLegacy.strict().extend({ audit_ref: z.string() }).parse(response.json);
    expect(validation.gates.length).toBeGreaterThan(5);
  });

  it("answers only version 2026-06-11: another Svc-Version is refused, naming the header", async () => {
    const { key } = await mintLegacyKey();
    for (const version of ["2026-07-05", "2025-01-01"]) {
      const response = await app().legacyRequest("GET", "/v1/crypto/asset-map/map_0123456789abcdefghjkmnpqrs", {
        key,
        headers: { "svc-version": version },
      });
      expect(response.status).toBe(400);
      const error = ErrorEnvelope.parse(response.json).error;
      expect(error.param).toBe("Svc-Version");
      expect(error.message).toContain(version);
      expect(response.headers.get("svc-version")).toBe(LEGACY_VERSION);
    }
  });

  it("serves the version's own operations, each answer linking to its successor on the current listener", async () => {
    const { key } = await mintLegacyKey();
    const listed = await app().legacyRequest("GET", "/v1/debtors", { key });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("svc-version")).toBe(LEGACY_VERSION);
    expectWindowHeaders(listed, `${PUBLIC_BASE_URL}/v1/parties`);
    const id = "party_0123456789abcdefghjkmnpqrs";
    const one = await app().legacyRequest("GET", `/v1/debtors/${id}`, { key });
    expect(one.status).toBe(404);
    expectWindowHeaders(one, `${PUBLIC_BASE_URL}/v1/parties/${id}`);
  });

  it("links every operation of the version's own to its successor, whatever the answer", async () => {
    for (const { definition } of LEGACY_OPERATIONS) {
      await app().sql`delete from rate_limit_buckets where bucket like 'ip:%'`;
      const body = definition.method === "GET" ? {} : { body: {} };
      const response = await app().legacyRequest(definition.method, concrete(definition.path!), body);
      expect(response.status, definition.id).toBe(401);
      expectWindowHeaders(response, successorLink(definition));
    }
  });

  it("carries the window's headers on every answer, health and unknown routes included, and sends its /docs to the current reference", async () => {
    const health = await app().legacyRequest("GET", "/v1/health");
    expect(health.status).toBe(200);
    expect(Health.parse(health.json).version).toBe(LEGACY_VERSION);
    expect(health.headers.get("svc-version")).toBe(LEGACY_VERSION);
    expectWindowHeaders(health, `${PUBLIC_BASE_URL}/docs`);
    for (const path of ["/v1/no-such-thing", "/v1/matters/%zz"]) {
      const answer = await app().legacyRequest("GET", path);
      expect(answer.status, path).toBeGreaterThanOrEqual(400);
      expect(answer.headers.get("svc-version")).toBe(LEGACY_VERSION);
      expectWindowHeaders(answer, `${PUBLIC_BASE_URL}/docs`);
    }
    const docs = await fetch(`${app().legacyUrl}/docs`, { redirect: "manual" });
    expect(docs.status).toBe(302);
    expect(docs.headers.get("location")).toBe(`${PUBLIC_BASE_URL}/docs`);
  });

  it("does not serve the version's own routes on the current listener", async () => {
    const response = await app().request("POST", "/v1/debtors", { body: {} });
    expectError(response, 404, "not_found");
    expectNoWindowHeaders(response);
  });
});

describe("the legacy listener after its window", () => {
  beforeEach(async () => {
    await app().sql`delete from rate_limit_buckets where bucket like 'ip:%' or bucket like 'mint:%'`;
  });

  it("retires its operations at the sunset instant: 410 whatever the key, pointing at the successor, and nothing is written", async () => {
    insideWindow();
    const { key, organizationId } = await mintLegacyKey();
    const eventsBefore = await countEvents(app().sql, organizationId);
    afterWindow();
    for (const authorization of [key, "svc_legacy_test_not-a-key", null]) {
      const response = await app().legacyRequest("POST", "/v1/matters", {
        key: authorization,
        body: { name: "Too late v. Doe" },
      });
      const error = expectLegacyError(response, 410, `${PUBLIC_BASE_URL}/docs#tag/matters/POST/v1/matters`);
      expect(error.message).toContain("2026-10-03T00:00:00.000Z");
      expect(error.details).toEqual({
        successor: { method: "POST", path: "/v1/matters", url: `${PUBLIC_BASE_URL}/v1/matters` },
      });
      expectNoWindowHeaders(response);
    }
    expect(await countEvents(app().sql, organizationId)).toBe(eventsBefore);
    expect(await countRows(app().sql, "matters", organizationId)).toBe(0);
  });

  it("answers 410 to what no route recognises too: the whole listener is retired", async () => {
    afterWindow();
    for (const path of ["/v1/no-such-thing", "/v1/matters/%zz", `/v1/matters/${"m".repeat(600)}`]) {
      const answer = await app().legacyRequest("GET", path);
      const error = expectLegacyError(answer, 410, `${PUBLIC_BASE_URL}/docs`);
      expect(error.message, path).toContain("2026-10-03T00:00:00.000Z");
      expectNoWindowHeaders(answer);
    }
  });

  it("retires the version's own operations at the sunset: 410 naming their successor, and nothing is written", async () => {
    insideWindow();
    const { key, organizationId } = await mintLegacyKey();
    const created = await app().legacyRequest("POST", "/v1/matters", { key, body: { name: "Acme v. Roe" } });
    const matter = Matter.parse(created.json);
    const partiesBefore = await countRows(app().sql, "parties", organizationId);
    afterWindow();
    const response = await app().legacyRequest("POST", "/v1/debtors", {
      key,
      body: { matter_id: matter.id, legal_name: "Jane Roe" },
    });
    const error = expectLegacyError(response, 410, `${PUBLIC_BASE_URL}/docs#tag/parties/POST/v1/parties`);
    expect(error.message).toContain("POST /v1/debtors");
    expect(error.message).toContain("Its successor is POST /v1/parties");
    expect(error.details).toEqual({
      successor: {
        operation: "createParty",
        method: "POST",
        path: "/v1/parties",
        note: "A debtor is a party with role debtor.",
      },
    });
    expectNoWindowHeaders(response);
    expect(await countRows(app().sql, "parties", organizationId)).toBe(partiesBefore);
  });

  it("answers every operation of the version's own 410 after the window, naming its successor", async () => {
    afterWindow();
    for (const { definition } of LEGACY_OPERATIONS) {
      await app().sql`delete from rate_limit_buckets where bucket like 'ip:%'`;
      // Retired before the body is read: an unreadable one changes nothing.
      const body = definition.method === "GET" ? {} : { rawBody: "{not json" };
      const retired = await app().legacyRequest(definition.method, concrete(definition.path!), body);
      const error = expectLegacyError(retired, 410, successorDocUrl(definition.successor!));
      expect(error.message).toContain(`${definition.method} ${definition.path} (version ${LEGACY_VERSION})`);
      expect(error.details?.successor).toBeDefined();
      expectNoWindowHeaders(retired);
    }
  });

  it("stops minting legacy keys and keeps answering health", async () => {
    afterWindow();
    const minted = await app().legacyRequest("POST", "/api/sandbox-key", { body: {} });
    expectLegacyError(minted, 410, `${PUBLIC_BASE_URL}/docs#tag/keys/POST/api/sandbox-key`);
    const health = await app().legacyRequest("GET", "/v1/health");
    expect(health.status).toBe(200);
    expect(health.headers.get("svc-version")).toBe(LEGACY_VERSION);
    expectNoWindowHeaders(health);
  });

  it("points claw, actions, monitoring and network attribution at the jobs reference after the window", async () => {
    afterWindow();
    for (const path of ["/v1/claw/campaigns", "/v1/actions", "/v1/watchlists", "/v1/network-attribution/na_0"]) {
      await app().sql`delete from rate_limit_buckets where bucket like 'ip:%'`;
      const retired = await app().legacyRequest("GET", path);
      expect(expectLegacyError(retired, 410, `${PUBLIC_BASE_URL}/docs#tag/jobs`).details).toEqual({
        successor: { reference: "Jobs", note: expect.stringContaining("job verbs") },
      });
    }
  });
});

describe("the legacy listener's gates", () => {
  beforeEach(async () => {
    insideWindow();
    await app().sql`delete from rate_limit_buckets where bucket like 'ip:%' or bucket like 'mint:%'`;
  });

  it("refuses a write without granted authority with 403 authority_required, also when an Idempotency-Key replays it", async () => {
    const { key } = await mintLegacyKey();
    const created = await app().legacyRequest("POST", "/v1/matters", { key, body: { name: "Acme Holdings v. Doe" } });
    const matter = Matter.parse(created.json);
    const send = () =>
      app().legacyRequest("POST", "/v1/packets", {
        key,
        body: { matter_id: matter.id, type: "exchange_freeze" },
        headers: { "idempotency-key": `gate-${matter.id}` },
      });
    const first = await send();
    expect(first.status).toBe(403);
    expect(ErrorEnvelope.parse(first.json).error.code).toBe("authority_required");
    expectWindowHeaders(first, `${PUBLIC_BASE_URL}/v1/packets`);
    const replay = await send();
    expect(replay.status).toBe(403);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(first.text);
    // The current listener keeps 409, on either version.
    const owner = await app().mintKey();
    const current = Matter.parse(
      (await app().request("POST", "/v1/matters", { key: owner.key, body: { name: "Acme Holdings v. Doe" } })).json,
    );
    for (const version of ["2026-07-05", "2026-06-11"]) {
      const gated = await app().request("POST", "/v1/packets", {
        key: owner.key,
        body: { matter_id: current.id, type: "exchange_freeze" },
        headers: { "svc-version": version },
      });
      expect(gated.status, version).toBe(409);
      expectNoWindowHeaders(gated);
    }
  });

  it("keeps the window's headers on a rate-limited answer of the version's own routes", async () => {
    const { key } = await mintLegacyKey();
    await app().sql`update rate_limit_buckets set tokens = 0 where bucket like 'ip:%'`;
    let limited: TestResponse | undefined;
    for (let i = 0; i < 200 && limited === undefined; i++) {
      const answer = await app().legacyRequest("GET", "/v1/claw/campaigns", { key });
      if (answer.status === 429) limited = answer;
    }
    expect(limited?.status).toBe(429);
    expectWindowHeaders(limited!, `${PUBLIC_BASE_URL}/docs#tag/jobs`);
  });
});
