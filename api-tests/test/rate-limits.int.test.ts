import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countEvents, countMatters, expectError, expectStandardHeaders } from "./support/expectations";
import { startTestApp, type TestApp, type TestResponse } from "./support/test-app";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** A bucket of five that refills one token in about seventeen minutes: every count below is exact. */
const TINY = { perSecond: 0.001, burst: 5 };

function institutionalKey(scopes: string[], organizationId?: string) {
  return t.keyWithScopes(scopes, {
    plan: "institutional",
    rateLimit: TINY,
    ...(organizationId ? { organizationId } : {}),
  });
}

function expectRefused(response: TestResponse) {
  expectStandardHeaders(response);
  const envelope = expectError(response, 429, "rate_limited");
  expect(response.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
  expect(response.headers.get("svc-ratelimit-limit")).toBe("5");
  expect(response.headers.get("svc-ratelimit-remaining")).toBe("0");
  return envelope;
}

describe("rate limits", () => {
  it("counts a key's remaining tokens down on every response, then answers 429 with Retry-After", async () => {
    const limited = await institutionalKey(["matters:read"]);
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await t.request("GET", "/v1/matters", { key: limited.key });
      expectStandardHeaders(response);
      expect(response.status).toBe(200);
      expect(response.headers.get("svc-ratelimit-limit")).toBe("5");
      remaining.push(response.headers.get("svc-ratelimit-remaining"));
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"]);
    const envelope = expectRefused(await t.request("GET", "/v1/matters", { key: limited.key }));
    expect(envelope.error.message).toMatch(/retry/i);
  });

  it("admits exactly the burst out of 12 truly concurrent requests", async () => {
    const limited = await institutionalKey(["matters:read"]);
    const responses = await Promise.all(
      Array.from({ length: 12 }, () => t.request("GET", "/v1/matters", { key: limited.key })),
    );
    const admitted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    expect(admitted).toHaveLength(5);
    expect(refused).toHaveLength(7);
    for (const response of admitted) {
      expectStandardHeaders(response);
      expect(response.headers.get("svc-ratelimit-limit")).toBe("5");
    }
    expect(admitted.map((r) => r.headers.get("svc-ratelimit-remaining")).sort()).toEqual(["0", "1", "2", "3", "4"]);
    for (const response of refused) expectRefused(response);
  });

  it("admits exactly a burst of 64 out of 100 concurrent requests while drawing on the row in leases", async () => {
    // A burst of 64 leases up to 4 tokens per draw; no refill to speak of, so every count is exact.
    const limited = await t.keyWithScopes(["matters:read"], {
      plan: "institutional",
      rateLimit: { perSecond: 0.001, burst: 64 },
    });
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => t.request("GET", "/v1/matters", { key: limited.key })),
    );
    const admitted = responses.filter((r) => r.status === 200);
    expect(admitted).toHaveLength(64);
    for (const response of responses.filter((r) => r.status !== 200)) {
      expectStandardHeaders(response);
      expectError(response, 429, "rate_limited");
      expect(response.headers.get("svc-ratelimit-remaining")).toBe("0");
    }
    // One process, one bucket: the remaining counts are the countdown 63..0, each exactly once.
    const remaining = admitted.map((r) => Number(r.headers.get("svc-ratelimit-remaining"))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 64 }, (_, i) => i));
    // Fewer writes to the row than admissions: most requests were admitted from a lease in memory.
    const [row] = await t.sql<{ version: string; tokens: number }[]>`
      select version::text as version, tokens from rate_limit_buckets where bucket = ${`key:${limited.keyId}`}`;
    expect(Number(row?.version)).toBeLessThan(40);
    expect(Math.floor(Number(row?.tokens))).toBe(0);
  });

  it("holds the limit across two REST processes on one database", async () => {
    const second = await startTestApp({ databaseUrl: t.databaseUrl });
    try {
      const limited = await institutionalKey(["matters:read"]);
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 === 0 ? t : second).request("GET", "/v1/matters", { key: limited.key }),
        ),
      );
      expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
      for (const response of responses.filter((r) => r.status !== 200)) expectRefused(response);
    } finally {
      await second.close();
    }
  });

  it("refuses an over-limit write before doing any of it", async () => {
    const limited = await institutionalKey(["matters:write"]);
    for (let i = 0; i < 5; i++) {
      const response = await t.request("POST", "/v1/matters", { key: limited.key, body: { name: `M${i}` } });
      expect(response.status).toBe(201);
    }
    const refused = await t.request("POST", "/v1/matters", {
      key: limited.key,
      body: { name: "One too many" },
      headers: { "idempotency-key": "over-the-limit" },
    });
    expectRefused(refused);
    expect(await countMatters(t.sql, limited.organizationId)).toBe(5);
    expect(await countEvents(t.sql, limited.organizationId)).toBe(5);
    const [stored] = await t.sql<{ n: number }[]>`
      select count(*)::int as n from idempotency_records where organization_id = ${limited.organizationId}`;
    expect(stored?.n).toBe(0);
  });

  it("keeps one bucket per key: another key of the same organization is unaffected", async () => {
    const first = await institutionalKey(["matters:read"]);
    const second = await institutionalKey(["matters:read"], first.organizationId);
    expect(second.organizationId).toBe(first.organizationId);
    for (let i = 0; i < 5; i++) await t.request("GET", "/v1/matters", { key: first.key });
    expectRefused(await t.request("GET", "/v1/matters", { key: first.key }));
    const other = await t.request("GET", "/v1/matters", { key: second.key });
    expect(other.status).toBe(200);
    expect(other.headers.get("svc-ratelimit-remaining")).toBe("4");
  });

  it("reports a sandbox key's burst of 50 and an operator key's burst of 200", async () => {
    const sandbox = await t.mintKey();
    const operator = await t.keyWithScopes(["matters:read"]);
    const a = await t.request("GET", "/v1/matters", { key: sandbox.key });
    const b = await t.request("GET", "/v1/matters", { key: operator.key });
    expect([a.headers.get("svc-ratelimit-limit"), a.headers.get("svc-ratelimit-remaining")]).toEqual(["50", "49"]);
    expect([b.headers.get("svc-ratelimit-limit"), b.headers.get("svc-ratelimit-remaining")]).toEqual(["200", "199"]);
  });
});
