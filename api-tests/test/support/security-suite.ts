import { randomUUID } from "node:crypto";
import {
  CURRENT_OPERATIONS,
  isWrite,
  LEGACY_OPERATIONS,
  LEGACY_SCOPES,
  type OperationDefinition,
  SCOPES,
} from "@crs/contract";
import { type KeyKind, signApiKey, verifyApiKey } from "@crs/core";
import { revokeKey } from "@crs/services";
import { beforeEach, describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  countEvents,
  countIdempotencyRecords,
  expectError,
  expectStandardHeaders,
  ValidationDetails,
} from "./expectations";
import { TEST_SECRETS, type TestApp, type TestKey, type TestResponse } from "./test-app";

/** One call's input, the same on both surfaces: REST puts it in the URL and body, tRPC in one object. */
export interface SuiteRequest {
  /** path parameters, naming resources that belong to the owner */
  params?: Record<string, string>;
  /** a read's query */
  query?: Record<string, string>;
  /** a write's body */
  body?: unknown;
}

export interface SecuritySuiteSetup {
  /** the app of the calling test file (started in its beforeAll) */
  app: () => TestApp;
  /** Builds a valid request for this operation, creating whatever it addresses as `owner`. */
  request: (owner: TestKey) => Promise<SuiteRequest>;
  /**
   * A key of a new organization that may call the operation (default: a sandbox key, which holds every
   * non-privileged scope). A privileged operation gives one holding its scope.
   */
  owner?: () => Promise<TestKey>;
  /** A body that fails validation, and every field the 422 must name. Required for every write that takes a body. */
  badBody?: { body: unknown; missing: readonly string[]; invalid: readonly string[] };
  /** Required for every operation whose definition takes an Idempotency-Key. */
  idempotency?: {
    /** what one write changes, counted in the owner's organization */
    effects: (owner: TestKey) => Promise<Record<string, number>>;
    /** how much each count grows with one write */
    perWrite: Record<string, number>;
    /** another valid body for the same request */
    changedBody: unknown;
  };
}

type SurfaceName = "REST" | "tRPC" | "legacy REST";

/** How one surface sends a SuiteRequest, and what it answers on success. */
interface Surface {
  name: SurfaceName;
  successStatus: number;
  send(app: TestApp, key: string | null, target: SuiteRequest, headers: Record<string, string>): Promise<TestResponse>;
  /** a REST call on the listener this surface is served on */
  request: (app: TestApp) => TestApp["request"];
  /** a new organization's key that the listener accepts (a sandbox key holds every non-privileged scope) */
  mintKey: (app: TestApp) => Promise<TestKey>;
}

function restSurface(operation: OperationDefinition, path: string, listener: "current" | "legacy"): Surface {
  const request = (app: TestApp) => (listener === "legacy" ? app.legacyRequest : app.request);
  return {
    name: listener === "legacy" ? "legacy REST" : "REST",
    successStatus: operation.successStatus,
    request,
    mintKey: (app) => (listener === "legacy" ? app.mintLegacyKey() : app.mintKey()),
    send(app, key, target, headers) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(target.params?.[name] ?? ""));
      const query = target.query ? `?${new URLSearchParams(target.query)}` : "";
      return request(app)(operation.method, `${url}${query}`, {
        key,
        headers,
        ...(target.body !== undefined ? { body: target.body } : {}),
      });
    },
  };
}

function rpcSurface(operation: OperationDefinition, procedure: string): Surface {
  return {
    name: "tRPC",
    successStatus: 200,
    request: (app) => app.request,
    mintKey: (app) => app.mintKey(),
    send(app, key, target, headers) {
      const fields = isWrite(operation) ? target.body : target.query;
      const input =
        target.params === undefined && fields === undefined
          ? undefined
          : { ...target.params, ...(fields as Record<string, unknown> | undefined) };
      return app.rpc(isWrite(operation) ? "mutation" : "query", procedure, {
        key,
        headers,
        ...(input !== undefined ? { input } : {}),
      });
    },
  };
}

/** The surfaces an operation is served on, from its definition. */
function surfacesOf(operation: OperationDefinition): Surface[] {
  if (operation.surface === "legacy") {
    const listed = LEGACY_OPERATIONS.find((entry) => entry.definition === operation);
    if (!listed || !operation.path) throw new Error(`${operation.id} is not a legacy operation`);
    return [restSurface(operation, operation.path, "legacy")];
  }
  const listed = CURRENT_OPERATIONS.find((entry) => entry.definition === operation);
  if (!listed) throw new Error(`${operation.id} is not an operation of the current surface`);
  return [
    ...(operation.path ? [restSurface(operation, operation.path, "current")] : []),
    ...(operation.rpc === false ? [] : [rpcSurface(operation, listed.procedure)]),
  ];
}

const OTHER_SECRET = "a-completely-different-signing-secret-not-the-servers";

/** A legacy key of a new organization granting exactly these scopes (its minted claims, re-signed). */
async function legacyKeyWithScopes(app: TestApp, scopes: readonly string[]): Promise<TestKey> {
  const minted = await app.mintLegacyKey();
  const key = signApiKey(
    "legacy_sandbox",
    { ...claimsOf(minted.key), grants: [...scopes] },
    TEST_SECRETS.keySigningSecret,
  );
  return { ...minted, key };
}

function kindOf(key: string): KeyKind {
  if (key.startsWith("svc_legacy_test_")) return "legacy_sandbox";
  return key.startsWith("svc_live_") ? "live" : "sandbox";
}

function claimsOf(key: string) {
  const verification = verifyApiKey(key, TEST_SECRETS.keySigningSecret);
  if (!verification.ok) throw new Error(`test key does not verify: ${verification.reason}`);
  return verification.claims;
}

/**
 * The resource an operation addresses: its path parameter (`{matter_id}` → `matter`), else the
 * first required `<resource>_id` field of its body or query (POST /v1/parties names its matter there).
 */
function resourceOf(operation: OperationDefinition): string | null {
  const match = /\{(\w+)_id\}/.exec(operation.path ?? "");
  if (match?.[1]) return match[1];
  const required = Object.entries({ ...operation.body?.shape, ...operation.query?.shape }).find(
    ([name, field]) => name.endsWith("_id") && !(field as z.ZodType).safeParse(undefined).success,
  );
  return required ? required[0].slice(0, -"_id".length) : null;
}

async function eventTypesOfRequest(app: TestApp, owner: TestKey, requestId: string | null): Promise<string[]> {
  const rows = await app.sql<{ type: string }[]>`
    select type from events where organization_id = ${owner.organizationId} and audit_ref = ${requestId ?? ""}`;
  return rows.map((row) => row.type);
}

/**
 * The guarantees every operation owes, checked the same way on every surface it is served on:
 * authentication (401), scopes (403), tenant and environment isolation (404, never 403),
 * validation (422 naming every bad field), the events it may append, idempotency (replay,
 * conflict, concurrent duplicates, a stored 422), and the standard headers on every response.
 */
export function describeSecuritySuite(operation: OperationDefinition, setup: SecuritySuiteSetup): void {
  const label = operation.path ? `${operation.method} ${operation.path}` : operation.id;
  if (isWrite(operation) && operation.body && operation.scope !== "none" && !setup.badBody) {
    throw new Error(`${label} is a write that takes a body: give the security suite a badBody`);
  }
  if (operation.idempotent && !setup.idempotency) {
    throw new Error(`${label} takes an Idempotency-Key: give the security suite its idempotency block`);
  }
  for (const surface of surfacesOf(operation)) describeOnSurface(operation, setup, surface, label);
}

function describeOnSurface(operation: OperationDefinition, setup: SecuritySuiteSetup, surface: Surface, label: string) {
  const resource = resourceOf(operation);
  const newOwner = () => (setup.owner ? setup.owner() : surface.mintKey(setup.app()));
  const legacy = surface.name === "legacy REST";

  async function call(key: string | null, target: SuiteRequest, headers: Record<string, string> = {}) {
    const response = await surface.send(setup.app(), key, target, headers);
    expectStandardHeaders(response);
    return response;
  }

  /** Runs `attempt` and checks that it left the owner's event log untouched. */
  async function writesNothing(owner: TestKey, attempt: () => Promise<void>) {
    const before = await countEvents(setup.app().sql, owner.organizationId);
    await attempt();
    expect(await countEvents(setup.app().sql, owner.organizationId)).toBe(before);
  }

  describe(`${label} over ${surface.name}: security`, () => {
    // Every request from this test process comes from 127.0.0.1, and keyless or invalid-key
    // requests share that address's bucket; start each guarantee with a full one.
    beforeEach(async () => {
      await setup.app().sql`delete from rate_limit_buckets where bucket like 'ip:%'`;
    });

    it(`answers ${surface.successStatus} to a valid key of its own organization, with the standard headers`, async () => {
      const owner = await newOwner();
      const response = await call(owner.key, await setup.request(owner));
      expect({ status: response.status, body: response.json }).toMatchObject({ status: surface.successStatus });
    });

    if (isWrite(operation) && operation.scope !== "none") {
      it(`appends only the events its definition declares (${operation.events.join(", ") || "none"})`, async () => {
        const owner = await newOwner();
        const response = await call(owner.key, await setup.request(owner));
        expect(response.status).toBe(surface.successStatus);
        const types = await eventTypesOfRequest(setup.app(), owner, response.headers.get("svc-request-id"));
        if (operation.events.length === 0) expect(types).toEqual([]);
        else expect(types.length).toBeGreaterThan(0);
        for (const type of types) expect(operation.events).toContain(type);
      });
    }

    if (operation.scope !== "none") {
      it("returns 401 unauthenticated without a key", async () => {
        const owner = await newOwner();
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
      const owner = await newOwner();
      const target = await setup.request(owner);
      const forged = signApiKey(kindOf(owner.key), claimsOf(owner.key), OTHER_SECRET);
      expect(forged).not.toBe(owner.key);
      await writesNothing(owner, async () => {
        expectError(await call(forged, target), 401, "unauthenticated");
      });
    });

    it("returns 401 for a tampered key (claims edited or signature altered)", async () => {
      const owner = await newOwner();
      const other = await newOwner();
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
      const owner = await newOwner();
      const target = await setup.request(owner);
      const before = await surface.request(setup.app())("GET", "/v1/organization", { key: owner.key });
      expect(before.status).toBe(200);
      await revokeKey(setup.app().deps, owner.keyId);
      await writesNothing(owner, async () => {
        const envelope = expectError(await call(owner.key, target), 401, "unauthenticated");
        expect(envelope.error.message).toMatch(/revoked/);
      });
    });

    it("returns 401 for a malformed Authorization header", async () => {
      const owner = await newOwner();
      const target = await setup.request(owner);
      await writesNothing(owner, async () => {
        for (const authorization of [`Basic ${owner.key}`, "Bearer", "Bearer not-a-key", `Bearer ${owner.key} extra`]) {
          expectError(await call(null, target, { authorization }), 401, "unauthenticated");
        }
      });
    });

    const scope = operation.scope;
    if (scope !== "none" && scope !== "any") {
      it(`returns 403 insufficient_scope naming '${scope}' for a key holding every other scope`, async () => {
        const owner = await newOwner();
        const target = await setup.request(owner);
        const limited = legacy
          ? await legacyKeyWithScopes(
              setup.app(),
              [...SCOPES, ...LEGACY_SCOPES].filter((s) => s !== scope),
            )
          : await setup.app().keyWithScopes(SCOPES.filter((s) => s !== scope));
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
        const owner = await newOwner();
        const target = await setup.request(owner);
        const narrow = await setup.app().keyWithScopes(["events:read"]);
        const response = await call(narrow.key, target);
        expect(response.status).toBe(surface.successStatus);
      });
    }

    if (resource !== null && scope !== "none") {
      it(`returns 404, not 403, for another organization's ${resource}`, async () => {
        const owner = await newOwner();
        const stranger = await newOwner();
        const target = await setup.request(owner);
        await writesNothing(owner, async () => {
          await writesNothing(stranger, async () => {
            const envelope = expectError(await call(stranger.key, target), 404, "not_found");
            expect(envelope.error.message).toMatch(new RegExp(resource));
          });
        });
      });
    }

    if (legacy && scope !== "none") {
      it("returns 401 for a key of the current surface, which the legacy listener does not accept", async () => {
        const owner = await newOwner();
        const target = await setup.request(owner);
        const current = await setup.app().mintKey();
        await writesNothing(owner, async () => {
          expectError(await call(current.key, target), 401, "unauthenticated");
        });
      });
    }

    // A live owner's environment isolation is the test above: every organization has one environment.
    if (resource !== null && scope !== "none" && !setup.owner && !legacy) {
      it(`returns 404 for a sandbox ${resource} requested with a live key holding the scope`, async () => {
        const owner = await newOwner();
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
        const owner = await newOwner();
        const target = await setup.request(owner);
        await writesNothing(owner, async () => {
          const response = await call(owner.key, { ...target, body: badBody.body });
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
        const owner = await newOwner();
        const target = await setup.request(owner);
        const idempotencyKey = `replay-${randomUUID()}`;
        const before = await idempotency.effects(owner);
        const first = await call(owner.key, target, { "idempotency-key": idempotencyKey });
        expect(first.status).toBe(surface.successStatus);
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
        const owner = await newOwner();
        const target = await setup.request(owner);
        const idempotencyKey = `changed-${randomUUID()}`;
        const first = await call(owner.key, target, { "idempotency-key": idempotencyKey });
        expect(first.status).toBe(surface.successStatus);
        const afterFirst = await idempotency.effects(owner);
        const changed = await call(
          owner.key,
          { ...target, body: idempotency.changedBody },
          { "idempotency-key": idempotencyKey },
        );
        const envelope = expectError(changed, 409, "conflict");
        expect(envelope.error.param).toBe("Idempotency-Key");
        expect(changed.headers.get("idempotent-replayed")).toBeNull();
        expect(await idempotency.effects(owner)).toEqual(afterFirst);
      });

      if (badBody) {
        it("stores a 422 under its Idempotency-Key and replays it byte for byte, writing nothing", async () => {
          const owner = await newOwner();
          const target = await setup.request(owner);
          const idempotencyKey = `invalid-${randomUUID()}`;
          const before = await idempotency.effects(owner);
          const refused = await call(
            owner.key,
            { ...target, body: badBody.body },
            { "idempotency-key": idempotencyKey },
          );
          expectError(refused, 422, "invalid_request");
          const replayed = await call(
            owner.key,
            { ...target, body: badBody.body },
            { "idempotency-key": idempotencyKey },
          );
          expect(replayed.status).toBe(422);
          expect(replayed.text).toBe(refused.text);
          expect(replayed.headers.get("idempotent-replayed")).toBe("true");
          expect(replayed.headers.get("svc-request-id")).toBe(refused.headers.get("svc-request-id"));
          expect(await idempotency.effects(owner)).toEqual(before);
          // The key is spent on the refused body: the valid one is another request under it.
          expectError(await call(owner.key, target, { "idempotency-key": idempotencyKey }), 409, "conflict");
        });
      }

      it("returns 409 conflict while the same Idempotency-Key is in flight, and stores nothing", async () => {
        const { sql } = setup.app();
        const owner = await newOwner();
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
        expect(retried.status).toBe(surface.successStatus);
        expect(retried.headers.get("idempotent-replayed")).toBeNull();
        expect(await idempotency.effects(owner)).toEqual(grown(before, 1));
      });

      it("writes exactly once under a burst of concurrent identical requests", async () => {
        const owner = await newOwner();
        const target = await setup.request(owner);
        const idempotencyKey = `burst-${randomUUID()}`;
        const before = await idempotency.effects(owner);
        const responses: TestResponse[] = await Promise.all(
          Array.from({ length: 10 }, () => call(owner.key, target, { "idempotency-key": idempotencyKey })),
        );
        const successes = responses.filter((r) => r.status === surface.successStatus);
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
}
