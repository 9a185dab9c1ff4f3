import { randomUUID } from "node:crypto";
import { type Operation, SCOPES } from "@crs/contract";
import { type KeyKind, signApiKey, verifyApiKey } from "@crs/core";
import { revokeKey } from "@crs/services";
import { beforeEach, describe, expect, it } from "vitest";
import {
  countEvents,
  countIdempotencyRecords,
  expectError,
  expectStandardHeaders,
  ValidationDetails,
} from "./expectations";
import { TEST_SECRETS, type TestApp, type TestKey, type TestResponse } from "./test-app";

export interface SuiteRequest {
  /** the concrete path, with ids of resources that belong to the owner */
  path: string;
  body?: unknown;
}

export interface SecuritySuiteSetup {
  /** the app of the calling test file (started in its beforeAll) */
  app: () => TestApp;
  /** Builds a valid request for this operation, creating whatever it addresses as `owner`. */
  request: (owner: TestKey) => Promise<SuiteRequest>;
  /** A body that fails validation, and every field the 422 must name. */
  badBody?: { body: unknown; missing: readonly string[]; invalid: readonly string[] };
  /** For operations that take an Idempotency-Key. */
  idempotency?: {
    /** what one write changes, counted in the owner's organization */
    effects: (owner: TestKey) => Promise<Record<string, number>>;
    /** how much each count grows with one write */
    perWrite: Record<string, number>;
    /** another valid body for the same request */
    changedBody: unknown;
  };
}

const OTHER_SECRET = "a-completely-different-signing-secret-not-the-servers";

function kindOf(key: string): KeyKind {
  if (key.startsWith("svc_legacy_test_")) return "legacy_sandbox";
  return key.startsWith("svc_live_") ? "live" : "sandbox";
}

function claimsOf(key: string) {
  const verification = verifyApiKey(key, TEST_SECRETS.keySigningSecret);
  if (!verification.ok) throw new Error(`test key does not verify: ${verification.reason}`);
  return verification.claims;
}

/** The resource an operation addresses, from its path parameter: `{matter_id}` → `matter`. */
function resourceOf(operation: Operation): string | null {
  const match = /\{(\w+)_id\}/.exec(operation.path);
  return match?.[1] ?? null;
}

function isWrite(operation: Operation): boolean {
  return operation.method !== "GET";
}

/**
 * The guarantees every operation owes, checked the same way for each: authentication (401),
 * scopes (403), tenant and environment isolation (404, never 403), validation (422 naming every
 * bad field), idempotency (replay, conflict, concurrent duplicates), and the standard headers
 * on every response.
 */
export function describeSecuritySuite(operation: Operation, setup: SecuritySuiteSetup): void {
  const label = `${operation.method} ${operation.path}`;
  const resource = resourceOf(operation);

  async function call(key: string | null, target: SuiteRequest, headers: Record<string, string> = {}) {
    const response = await setup.app().request(operation.method, target.path, {
      key,
      headers,
      ...(target.body !== undefined ? { body: target.body } : {}),
    });
    expectStandardHeaders(response);
    return response;
  }

  /** Runs `attempt` and checks that it left the owner's event log untouched. */
  async function writesNothing(owner: TestKey, attempt: () => Promise<void>) {
    const before = await countEvents(setup.app().sql, owner.organizationId);
    await attempt();
    expect(await countEvents(setup.app().sql, owner.organizationId)).toBe(before);
  }

  describe(`${label}: security`, () => {
    // Every request from this test process comes from 127.0.0.1, and keyless or invalid-key
    // requests share that address's bucket; start each guarantee with a full one.
    beforeEach(async () => {
      await setup.app().sql`delete from rate_limit_buckets where bucket like 'ip:%'`;
    });

    it(`answers ${operation.successStatus} to a valid key of its own organization, with the standard headers`, async () => {
      const owner = await setup.app().mintKey();
      const response = await call(owner.key, await setup.request(owner));
      expect({ status: response.status, body: response.json }).toMatchObject({ status: operation.successStatus });
    });

    if (operation.scope !== "none") {
      it("returns 401 unauthenticated without a key", async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        await writesNothing(owner, async () => {
          const response = await call(null, target);
          const envelope = expectError(response, 401, "unauthenticated");
          expect(envelope.error.message).toMatch(/API key/);
          expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
        });
      });
    }

    it("returns 401 for a key signed with another secret", async () => {
      const owner = await setup.app().mintKey();
      const target = await setup.request(owner);
      const forged = signApiKey(kindOf(owner.key), claimsOf(owner.key), OTHER_SECRET);
      expect(forged).not.toBe(owner.key);
      await writesNothing(owner, async () => {
        expectError(await call(forged, target), 401, "unauthenticated");
      });
    });

    it("returns 401 for a tampered key (claims edited or signature altered)", async () => {
      const owner = await setup.app().mintKey();
      const other = await setup.app().mintKey();
      const target = await setup.request(owner);
      const prefix = /^svc_(?:legacy_test|test|live)_/.exec(owner.key)?.[0] ?? "";
      expect(prefix).not.toBe("");
      const [payload, signature] = owner.key.slice(prefix.length).split(".") as [string, string];
      // Same signature, claims rewritten to another organization.
      const claims = { ...claimsOf(owner.key), org: other.organizationId };
      const rewritten = `${prefix}${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
      // Same claims, one signature character changed.
      const last = signature.at(-1) === "A" ? "B" : "A";
      const resigned = `${prefix}${payload}.${signature.slice(0, -1)}${last}`;
      // Same claims, one payload character changed.
      const edited = `${prefix}${payload.slice(0, 10)}${payload[10] === "x" ? "y" : "x"}${payload.slice(11)}.${signature}`;
      await writesNothing(owner, async () => {
        for (const tampered of [rewritten, resigned, edited]) {
          expect(tampered).not.toBe(owner.key);
          expectError(await call(tampered, target), 401, "unauthenticated");
        }
      });
    });

    it("returns 401 for a revoked key", async () => {
      const owner = await setup.app().mintKey();
      const target = await setup.request(owner);
      const before = await setup.app().request("GET", "/v1/organization", { key: owner.key });
      expect(before.status).toBe(200);
      await revokeKey(setup.app().deps, owner.keyId);
      await writesNothing(owner, async () => {
        const envelope = expectError(await call(owner.key, target), 401, "unauthenticated");
        expect(envelope.error.message).toMatch(/revoked/);
      });
    });

    it("returns 401 for a malformed Authorization header", async () => {
      const owner = await setup.app().mintKey();
      const target = await setup.request(owner);
      await writesNothing(owner, async () => {
        for (const authorization of [`Basic ${owner.key}`, "Bearer", "Bearer not-a-key", `Bearer ${owner.key} extra`]) {
          const response = await setup.app().request(operation.method, target.path, {
            headers: { authorization },
            ...(target.body !== undefined ? { body: target.body } : {}),
          });
          expectStandardHeaders(response);
          expectError(response, 401, "unauthenticated");
        }
      });
    });

    const scope = operation.scope;
    if (scope !== "none" && scope !== "any") {
      it(`returns 403 insufficient_scope naming '${scope}' for a key holding every other scope`, async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        const limited = await setup.app().keyWithScopes(SCOPES.filter((s) => s !== scope));
        await writesNothing(limited, async () => {
          await writesNothing(owner, async () => {
            const envelope = expectError(await call(limited.key, target), 403, "insufficient_scope");
            expect(envelope.error.message).toContain(scope);
            expect(envelope.error.details).toMatchObject({ required_scope: scope });
          });
        });
      });
    }

    if (scope === "any") {
      it("accepts a valid key whatever its scopes", async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        const narrow = await setup.app().keyWithScopes(["events:read"]);
        const response = await call(narrow.key, target);
        expect(response.status).toBe(operation.successStatus);
      });
    }

    if (resource !== null && scope !== "none") {
      it(`returns 404, not 403, for another organization's ${resource}`, async () => {
        const owner = await setup.app().mintKey();
        const stranger = await setup.app().mintKey();
        const target = await setup.request(owner);
        await writesNothing(owner, async () => {
          await writesNothing(stranger, async () => {
            const envelope = expectError(await call(stranger.key, target), 404, "not_found");
            expect(envelope.error.message).toMatch(new RegExp(resource));
          });
        });
      });

      it(`returns 404 for a sandbox ${resource} requested with a live key holding the scope`, async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        const live = await setup.app().keyWithScopes("all");
        await writesNothing(owner, async () => {
          expectError(await call(live.key, target), 404, "not_found");
        });
      });
    }

    const badBody = setup.badBody;
    if (badBody) {
      it(`returns 422 naming every bad field (${[...badBody.missing, ...badBody.invalid].join(", ")})`, async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        await writesNothing(owner, async () => {
          const response = await call(owner.key, { path: target.path, body: badBody.body });
          const envelope = expectError(response, 422, "invalid_request");
          const details = ValidationDetails.parse(envelope.error.details);
          expect([...(details.missing ?? [])].sort()).toEqual([...badBody.missing].sort());
          expect([...new Set((details.invalid ?? []).map((f) => f.param))].sort()).toEqual([...badBody.invalid].sort());
          for (const field of [...badBody.missing, ...badBody.invalid]) expect(envelope.error.message).toContain(field);
          expect([...badBody.missing, ...badBody.invalid]).toContain(envelope.error.param);
        });
      });
    }

    const idempotency = setup.idempotency;
    if (idempotency) {
      const grown = (before: Record<string, number>, writes: number) =>
        Object.fromEntries(Object.entries(before).map(([k, v]) => [k, v + (idempotency.perWrite[k] ?? 0) * writes]));

      it("replays the original answer for a repeated Idempotency-Key and writes once", async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        const idempotencyKey = `replay-${randomUUID()}`;
        const before = await idempotency.effects(owner);
        const first = await call(owner.key, target, { "idempotency-key": idempotencyKey });
        expect(first.status).toBe(operation.successStatus);
        expect(first.headers.get("idempotent-replayed")).toBeNull();
        expect(await idempotency.effects(owner)).toEqual(grown(before, 1));

        const second = await call(owner.key, target, { "idempotency-key": idempotencyKey });
        expect(second.status).toBe(first.status);
        expect(second.text).toBe(first.text);
        expect(second.headers.get("idempotent-replayed")).toBe("true");
        expect(second.headers.get("svc-request-id")).toBe(first.headers.get("svc-request-id"));
        expect(await idempotency.effects(owner)).toEqual(grown(before, 1));
      });

      it("returns 409 conflict for the same Idempotency-Key with a changed body, and writes nothing", async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        const idempotencyKey = `changed-${randomUUID()}`;
        const first = await call(owner.key, target, { "idempotency-key": idempotencyKey });
        expect(first.status).toBe(operation.successStatus);
        const afterFirst = await idempotency.effects(owner);
        const changed = await call(
          owner.key,
          { path: target.path, body: idempotency.changedBody },
          { "idempotency-key": idempotencyKey },
        );
        const envelope = expectError(changed, 409, "conflict");
        expect(envelope.error.param).toBe("Idempotency-Key");
        expect(changed.headers.get("idempotent-replayed")).toBeNull();
        expect(await idempotency.effects(owner)).toEqual(afterFirst);
      });

      it("returns 409 conflict while the same Idempotency-Key is in flight, and stores nothing", async () => {
        const { sql } = setup.app();
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        const idempotencyKey = `in-flight-${randomUUID()}`;
        const before = await idempotency.effects(owner);
        const recordsBefore = await countIdempotencyRecords(sql, owner.organizationId);
        // Hold the very lock an in-flight request with this key holds (idempotencyLockSql).
        const holder = await sql.reserve();
        const lockKey = `idem:${owner.organizationId}:${owner.environment}:${idempotencyKey}`;
        try {
          await holder`select pg_advisory_lock(hashtextextended(${lockKey}, 0))`;
          const duplicate = await call(owner.key, target, { "idempotency-key": idempotencyKey });
          const envelope = expectError(duplicate, 409, "conflict");
          expect(envelope.error.param).toBe("Idempotency-Key");
          expect(await idempotency.effects(owner)).toEqual(before);
          expect(await countIdempotencyRecords(sql, owner.organizationId)).toBe(recordsBefore);
        } finally {
          await holder`select pg_advisory_unlock(hashtextextended(${lockKey}, 0))`;
          holder.release();
        }
        // The refusal was not stored: once the lock is free the same key performs the write.
        const retried = await call(owner.key, target, { "idempotency-key": idempotencyKey });
        expect(retried.status).toBe(operation.successStatus);
        expect(retried.headers.get("idempotent-replayed")).toBeNull();
        expect(await idempotency.effects(owner)).toEqual(grown(before, 1));
      });

      it("writes exactly once under a burst of concurrent identical requests over HTTP", async () => {
        const owner = await setup.app().mintKey();
        const target = await setup.request(owner);
        const idempotencyKey = `burst-${randomUUID()}`;
        const before = await idempotency.effects(owner);
        const responses: TestResponse[] = await Promise.all(
          Array.from({ length: 10 }, () => call(owner.key, target, { "idempotency-key": idempotencyKey })),
        );
        const successes = responses.filter((r) => r.status === operation.successStatus);
        const conflicts = responses.filter((r) => r.status === 409);
        expect(successes.length + conflicts.length).toBe(responses.length);
        const originals = successes.filter((r) => r.headers.get("idempotent-replayed") === null);
        expect(originals).toHaveLength(1);
        for (const success of successes) expect(success.text).toBe(originals[0]?.text);
        for (const conflict of conflicts) expectError(conflict, 409, "conflict");
        expect(await idempotency.effects(owner)).toEqual(grown(before, 1));
        // After the burst, the key replays the one stored answer.
        const replay = await call(owner.key, target, { "idempotency-key": idempotencyKey });
        expect(replay.headers.get("idempotent-replayed")).toBe("true");
        expect(replay.text).toBe(originals[0]?.text);
      });
    }
  });

  if (isWrite(operation) && operation.scope !== "none" && !setup.badBody) {
    throw new Error(`${label} is a write: give the security suite a badBody`);
  }
}
