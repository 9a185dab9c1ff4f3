/**
 * The tRPC server in-process on a real database, through the typed client of @crs/client: the same
 * service functions, keys, scopes, error envelope and Idempotency-Key semantics as REST.
 */
import { randomUUID } from "node:crypto";
import { type AppRouter, createInternalClient, type InternalClient, withIdempotencyKey } from "@crs/client";
import { ListQuery, type Matter } from "@crs/contract";
import { type Actor, authenticateKey, issueLiveKey, type ReadContext } from "@crs/services";
import { verifyEventChain } from "@crs/services/events/verify-event-chain";
import { listMatters } from "@crs/services/matters/list-matters";
import { retrieveMatter } from "@crs/services/matters/retrieve-matter";
import { retrieveMatterDashboard } from "@crs/services/matters/retrieve-matter-dashboard";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { beforeAll, describe, expect, it } from "vitest";
import { countEvents, countMatters } from "./support/expectations";
import { useTestApp } from "./support/test-app";

const app = useTestApp();
let url = "";

/** The sandbox organization most tests act as, its typed client, and the same caller for services. */
let sandboxKey = "";
let client: InternalClient;
let actor: Actor;
/** A second sandbox organization, and a live key that can only read matters. */
let otherClient: InternalClient;
let readOnlyClient: InternalClient;

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is not set up`);
  return value;
}

/** What a service function reads with, as the caller of `client`. */
function asCaller(): ReadContext {
  return { ...app().deps, actor };
}

async function actorFor(key: string): Promise<Actor> {
  const authenticated = await authenticateKey(app().deps, key, "current");
  return {
    organizationId: authenticated.organizationId,
    environment: authenticated.environment,
    keyId: authenticated.keyId,
    scopes: authenticated.scopes,
    apiVersion: authenticated.pinnedVersion,
    requestId: "req_test_direct_service_call",
  };
}

const firstPage = () => listMatters(asCaller(), { params: {}, query: ListQuery.parse({}) });
const matterOf = (matterId: string) => retrieveMatter(asCaller(), { params: { matter_id: matterId } });

/** The error a call fails with; fails the test if the call succeeds. */
async function failureOf(call: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) return error as TRPCClientError<AppRouter>;
    throw error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

beforeAll(async () => {
  url = app().trpcUrl;
  sandboxKey = (await app().mintKey()).key;
  client = createInternalClient({ url, apiKey: sandboxKey });
  actor = await actorFor(sandboxKey);
  otherClient = createInternalClient({ url, apiKey: (await app().mintKey()).key });
  const readOnly = await issueLiveKey(app().deps, {
    plan: "institutional",
    organizationName: "Read-only Institution",
    scopes: ["matters:read"],
    rateLimit: { perSecond: 100, burst: 200 },
  });
  readOnlyClient = createInternalClient({ url, apiKey: readOnly.key });
});

describe("matters.* over tRPC", () => {
  let matter: Matter | undefined;

  it("create returns the matter the service reads back", async () => {
    const created = await client.matters.create.mutate({
      name: "Acme v. Doe",
      mode: "receivership",
      economics: { counsel_fee_percentage: 33.33 },
    });
    expect(created).toMatchObject({
      object: "matter",
      name: "Acme v. Doe",
      mode: "receivership",
      status: "active",
      livemode: false,
      organization_id: actor.organizationId,
      economics: { currency: "USD", counsel_fee_percentage: 33.33, platform_percentage: 0, holdback_percentage: 0 },
    });
    expect(created.id).toMatch(/^matter_/);
    expect(created.audit.request_id).toMatch(/^req_/);
    expect(created).toEqual(await matterOf(created.id));
    matter = created;
  });

  it("get and list answer what the services answer", async () => {
    const m = need(matter, "matter");
    expect(await client.matters.get.query({ matter_id: m.id })).toEqual(await matterOf(m.id));
    const list = await client.matters.list.query();
    expect(list).toEqual(await firstPage());
    expect(list.data.map((item) => item.id)).toEqual([m.id]);
    expect(await client.matters.list.query({ limit: 1 })).toMatchObject({ object: "list", has_more: false });
  });

  it("update changes the matter as the service records it", async () => {
    const m = need(matter, "matter");
    const updated = await client.matters.update.mutate({
      matter_id: m.id,
      name: "Acme Holdings v. Doe",
      status: "on_hold",
      lead_counsel: "J. Counsel",
    });
    expect(updated).toMatchObject({
      id: m.id,
      name: "Acme Holdings v. Doe",
      status: "on_hold",
      lead_counsel: "J. Counsel",
      created_at: m.created_at,
    });
    expect(updated).toEqual(await matterOf(m.id));
  });

  it("dashboard is the service's dashboard", async () => {
    const m = need(matter, "matter");
    const dashboard = await client.matters.dashboard.query({ matter_id: m.id });
    const expected = await retrieveMatterDashboard(asCaller(), { params: { matter_id: m.id } });
    // valuation_time is the clock at each call; everything else is the same.
    const valuedNow = { valuation_time: expect.any(String) };
    expect(dashboard).toEqual({
      ...expected,
      judgment_value: { ...expected.judgment_value, ...valuedNow },
      known_crypto_exposure: { ...expected.known_crypto_exposure, ...valuedNow },
      platform_economics: { ...expected.platform_economics, ...valuedNow },
    });
    expect(dashboard).toMatchObject({ object: "matter_dashboard", matter_id: m.id, judgment_value: { amount: 0 } });
  });

  it("close closes it, and a later update is CONFLICT", async () => {
    const m = need(matter, "matter");
    const closed = await client.matters.close.mutate({ matter_id: m.id, reason: "settled", notes: "Paid" });
    expect(closed).toMatchObject({ id: m.id, status: "closed", close_reason: "settled", close_notes: "Paid" });
    expect(closed.closed_at).toEqual(expect.any(String));
    expect(closed).toEqual(await matterOf(m.id));

    const error = await failureOf(client.matters.update.mutate({ matter_id: m.id, name: "Too late" }));
    expect(error.data?.code).toBe("CONFLICT");
    expect(error.data?.httpStatus).toBe(409);
    expect(error.data?.error.code).toBe("conflict");
    expect((await matterOf(m.id)).name).toBe("Acme Holdings v. Doe");
  });

  it("events.verifyChain: valid, one event per write", async () => {
    const verification = await client.events.verifyChain.query();
    // create, update, close
    expect(verification).toMatchObject({
      object: "chain_verification",
      valid: true,
      events_checked: 3,
      first_break: null,
    });
    const direct = await verifyEventChain(asCaller(), { params: {}, query: {} });
    expect(verification).toEqual({ ...direct, verified_at: expect.any(String) });
  });
});

describe("errors carry the REST envelope in data.error", () => {
  it("no key: UNAUTHORIZED, unauthenticated", async () => {
    const anonymous = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url })] });
    const error = await failureOf(anonymous.matters.list.query());
    expect(error.data?.code).toBe("UNAUTHORIZED");
    expect(error.data?.httpStatus).toBe(401);
    expect(error.data?.error.code).toBe("unauthenticated");
    expect(error.data?.error.request_id).toMatch(/^req_/);
    expect(error.data?.audit_ref).toBe(error.data?.error.request_id);
  });

  it("a forged key: UNAUTHORIZED, unauthenticated", async () => {
    const forged = createInternalClient({ url, apiKey: `${sandboxKey.slice(0, -4)}AAAA` });
    const error = await failureOf(forged.matters.list.query());
    expect(error.data?.code).toBe("UNAUTHORIZED");
    expect(error.data?.error.code).toBe("unauthenticated");
  });

  it("a key without matters:write: FORBIDDEN, insufficient_scope naming it", async () => {
    // It can read, so the key itself is fine.
    expect(await readOnlyClient.matters.list.query()).toMatchObject({ object: "list", data: [] });
    const error = await failureOf(readOnlyClient.matters.create.mutate({ name: "Not allowed" }));
    expect(error.data?.code).toBe("FORBIDDEN");
    expect(error.data?.httpStatus).toBe(403);
    expect(error.data?.error.code).toBe("insufficient_scope");
    expect(error.data?.error.message).toContain("matters:write");
  });

  it("another organization's (or environment's) matter: NOT_FOUND, not_found", async () => {
    const mine = await client.matters.create.mutate({ name: "Private matter" });
    for (const stranger of [otherClient, readOnlyClient]) {
      const error = await failureOf(stranger.matters.get.query({ matter_id: mine.id }));
      expect(error.data?.code).toBe("NOT_FOUND");
      expect(error.data?.httpStatus).toBe(404);
      expect(error.data?.error.code).toBe("not_found");
    }
    const writeError = await failureOf(otherClient.matters.update.mutate({ matter_id: mine.id, name: "Hijacked" }));
    expect(writeError.data?.error.code).toBe("not_found");
    expect((await matterOf(mine.id)).name).toBe("Private matter");
  });

  it("invalid create input: invalid_request naming every bad field, and nothing written", async () => {
    const before = await firstPage();
    const input = { name: "", mode: "bogus" } as unknown as Parameters<
      InternalClient["matters"]["create"]["mutate"]
    >[0];
    const error = await failureOf(client.matters.create.mutate(input));
    expect(error.data?.code).toBe("UNPROCESSABLE_CONTENT");
    expect(error.data?.httpStatus).toBe(422);
    expect(error.data?.error.code).toBe("invalid_request");
    const details = error.data?.error.details as { invalid?: Array<{ param: string }> } | undefined;
    expect(details?.invalid?.map((field) => field.param).sort()).toEqual(["mode", "name"]);
    expect(error.data?.error.message).toContain("name");
    expect(error.data?.error.message).toContain("mode");
    expect(await firstPage()).toEqual(before);
  });

  it("a __proto__ key, which every schema would drop without a word: 422 naming it, nothing written", async () => {
    const before = await firstPage();
    const input = {
      name: "ok",
      metadata: JSON.parse('{"ok":1,"__proto__":{"admin":true}}') as Record<string, unknown>,
    };
    const error = await failureOf(client.matters.create.mutate(input));
    expect(error.data?.httpStatus).toBe(422);
    expect(error.data?.error.code).toBe("invalid_request");
    expect(error.data?.error.param).toBe("metadata.__proto__");
    expect(await firstPage()).toEqual(before);
  });

  it("text a database cannot store: 422 naming the field, never a 5xx, nothing written", async () => {
    const before = await firstPage();
    for (const input of [{ name: "a\u0000b" }, { name: "ok", notes: "\ud800" }]) {
      const error = await failureOf(client.matters.create.mutate(input));
      expect(error.data?.httpStatus).toBe(422);
      expect(error.data?.error.code).toBe("invalid_request");
      expect(error.data?.error.param).toBe(Object.keys(input).at(-1));
    }
    expect(await firstPage()).toEqual(before);
  });

  it("text a database cannot store in a query's input: 400 naming the field, as in a REST query string", async () => {
    const error = await failureOf(client.events.list.query({ type: "matter.created\u0000" } as never));
    expect(error.data?.httpStatus).toBe(400);
    expect(error.data?.error.code).toBe("invalid_request");
    expect(error.data?.error.param).toBe("type");
  });

  it("an id a database cannot store names no record: 404 as over REST, never a 5xx", async () => {
    const error = await failureOf(client.matters.get.query({ matter_id: "matter_\u0000" }));
    expect(error.data?.httpStatus).toBe(404);
    expect(error.data?.error.code).toBe("not_found");
  });
});

describe("rate limits over tRPC", () => {
  it("draw on the key's shared bucket, with the same headers as REST, and 429 with Retry-After", async () => {
    const limited = await issueLiveKey(app().deps, {
      plan: "institutional",
      organizationName: "Tiny bucket",
      scopes: ["matters:read"],
      rateLimit: { perSecond: 0.001, burst: 2 },
    });
    const call = () => fetch(`${url}/matters.list`, { headers: { authorization: `Bearer ${limited.key}` } });
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const response = await call();
      answers.push({
        status: response.status,
        limit: response.headers.get("svc-ratelimit-limit"),
        remaining: response.headers.get("svc-ratelimit-remaining"),
        retryAfter: response.headers.get("retry-after"),
      });
      await response.body?.cancel();
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    expect(answers.map((a) => a.limit)).toEqual(["2", "2", "2"]);
    expect(answers.map((a) => a.remaining)).toEqual(["1", "0", "0"]);
    expect(answers[2]?.retryAfter).toMatch(/^[1-9]\d*$/);
  });
});

describe("Svc-Request-Id on every response", () => {
  it("a query, a mutation, an error, a batch and an unknown procedure each carry one", async () => {
    const authorization = `Bearer ${sandboxKey}`;
    const ok = await fetch(`${url}/matters.list`, { headers: { authorization } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("svc-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
    await ok.body?.cancel();

    const mutation = await fetch(`${url}/matters.create`, {
      method: "POST",
      headers: { authorization, "content-type": "application/json" },
      body: JSON.stringify({ name: "Raw fetch v. Doe" }),
    });
    expect(mutation.status).toBe(200);
    const mutationId = mutation.headers.get("svc-request-id");
    expect(mutationId).toMatch(/^req_[0-9a-z]{26}$/);
    const created = (await mutation.json()) as { result: { data: Matter } };
    // The matter's audit names the request that wrote it.
    expect(created.result.data.audit.request_id).toBe(mutationId);

    const unauthenticated = await fetch(`${url}/matters.list`);
    expect(unauthenticated.status).toBe(401);
    const requestId = unauthenticated.headers.get("svc-request-id");
    expect(requestId).toMatch(/^req_[0-9a-z]{26}$/);
    const body = (await unauthenticated.json()) as { error: { data: { audit_ref: string } } };
    expect(body.error.data.audit_ref).toBe(requestId);

    const batch = await fetch(`${url}/platform.health,matters.list?batch=1&input=${encodeURIComponent("{}")}`, {
      headers: { authorization },
    });
    expect(batch.status).toBe(200);
    expect(batch.headers.get("svc-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
    await batch.body?.cancel();

    const unknown = await fetch(`${url}/no.such.procedure`, { headers: { authorization } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("svc-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
    await unknown.body?.cancel();
  });
});

describe("Idempotency-Key over tRPC, per call through the typed client", () => {
  it("a mutation replayed with the same key returns the original result and writes once", async () => {
    const key = `rpc-replay-${randomUUID()}`;
    const before = await countMatters(app().sql, actor.organizationId);
    const first = await client.matters.create.mutate({ name: "Once v. Only" }, withIdempotencyKey(key));
    const second = await client.matters.create.mutate({ name: "Once v. Only" }, withIdempotencyKey(key));
    expect(second).toEqual(first);
    expect(second.audit.request_id).toBe(first.audit.request_id);
    expect(await countMatters(app().sql, actor.organizationId)).toBe(before + 1);
    // Without a key, the same input is a new write.
    const third = await client.matters.create.mutate({ name: "Once v. Only" });
    expect(third.id).not.toBe(first.id);
  });

  it("the same key with a changed input is CONFLICT naming Idempotency-Key, and writes nothing", async () => {
    const key = `rpc-changed-${randomUUID()}`;
    await client.matters.create.mutate({ name: "First v. Body" }, withIdempotencyKey(key));
    const events = await countEvents(app().sql, actor.organizationId);
    const error = await failureOf(client.matters.create.mutate({ name: "Second v. Body" }, withIdempotencyKey(key)));
    expect(error.data?.httpStatus).toBe(409);
    expect(error.data?.error).toMatchObject({ code: "conflict", param: "Idempotency-Key" });
    expect(await countEvents(app().sql, actor.organizationId)).toBe(events);
  });

  it("a refused input is stored under its key and replayed with the original envelope", async () => {
    const key = `rpc-invalid-${randomUUID()}`;
    const invalid = { name: "", mode: "bogus" } as unknown as Parameters<
      InternalClient["matters"]["create"]["mutate"]
    >[0];
    const first = await failureOf(client.matters.create.mutate(invalid, withIdempotencyKey(key)));
    const second = await failureOf(client.matters.create.mutate(invalid, withIdempotencyKey(key)));
    expect(first.data?.httpStatus).toBe(422);
    expect(second.data).toEqual(first.data);
    expect(second.data?.error.request_id).toBe(first.data?.error.request_id);
  });

  it("one key across surfaces: a write made over REST is replayed, not repeated, over tRPC", async () => {
    const key = `cross-surface-${randomUUID()}`;
    const rest = await app().request("POST", "/v1/matters", {
      key: sandboxKey,
      body: { name: "Both v. Surfaces" },
      headers: { "idempotency-key": key },
    });
    expect(rest.status).toBe(201);
    const before = await countMatters(app().sql, actor.organizationId);
    const viaRpc = await client.matters.create.mutate({ name: "Both v. Surfaces" }, withIdempotencyKey(key));
    const { audit_ref: _auditRef, ...restBody } = rest.json as Record<string, unknown>;
    expect(viaRpc).toEqual(restBody);
    expect(await countMatters(app().sql, actor.organizationId)).toBe(before);
  });

  it("a key on a batch of several calls is refused: it could not name each of them", async () => {
    const response = await fetch(`${url}/matters.create,matters.create?batch=1`, {
      method: "POST",
      headers: { authorization: `Bearer ${sandboxKey}`, "content-type": "application/json", "idempotency-key": "k" },
      body: JSON.stringify({ 0: { name: "A" }, 1: { name: "B" } }),
    });
    const answers = (await response.json()) as Array<{
      error?: { data: { error: { param: string }; httpStatus: number } };
    }>;
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      expect(answer.error?.data.httpStatus).toBe(400);
      expect(answer.error?.data.error.param).toBe("Idempotency-Key");
    }
  });
});

describe("the tRPC transport answers like the API it carries", () => {
  const authorization = () => `Bearer ${sandboxKey}`;
  const REQUEST_ID = /^req_[0-9a-z]{26}$/;

  async function envelopeOf(response: Response) {
    const body = (await response.json()) as { error: { data: { error: { code: string; request_id: string } } } };
    return body.error.data.error;
  }

  it("refuses streamed batches, whose headers would leave before any procedure ran", async () => {
    const response = await fetch(`${url}/matters.list?batch=1&input=${encodeURIComponent("{}")}`, {
      headers: { authorization: authorization(), "trpc-accept": "application/jsonl" },
    });
    expect(response.status).toBe(400);
    expect(response.headers.get("svc-request-id")).toMatch(REQUEST_ID);
    const envelope = await envelopeOf(response);
    expect(envelope).toMatchObject({ code: "invalid_request", param: "trpc-accept" });
    expect(envelope.request_id).toBe(response.headers.get("svc-request-id"));
  });

  it("answers an unknown procedure 404 with the request id, the version and the caller's rate-limit headers", async () => {
    const response = await fetch(`${url}/matters.nothing`, { headers: { authorization: authorization() } });
    expect(response.status).toBe(404);
    expect(response.headers.get("svc-request-id")).toMatch(REQUEST_ID);
    expect(response.headers.get("svc-version")).toBe("2026-07-05");
    expect(response.headers.get("svc-ratelimit-limit")).toMatch(/^\d+$/);
    expect((await envelopeOf(response)).code).toBe("not_found");
  });

  it("answers a body that is not JSON 415, with the envelope's request id equal to the header", async () => {
    const response = await fetch(`${url}/matters.create`, {
      method: "POST",
      headers: { authorization: authorization(), "content-type": "text/plain" },
      body: "name=Acme",
    });
    expect(response.status).toBe(415);
    const envelope = await envelopeOf(response);
    expect(envelope.request_id).toBe(response.headers.get("svc-request-id"));
    expect(envelope.request_id).toMatch(REQUEST_ID);
  });

  it("answers each write of a batch 400 (one request per write), and serves batched reads with a key present", async () => {
    const before = await countEvents(app().sql, actor.organizationId);
    const writes = await fetch(`${url}/matters.create,matters.create?batch=1`, {
      method: "POST",
      headers: { authorization: authorization(), "content-type": "application/json" },
      body: JSON.stringify({ 0: { name: "A" }, 1: { name: "B" } }),
    });
    const answers = (await writes.json()) as Array<{ error?: { data: { httpStatus: number } } }>;
    expect(answers.map((answer) => answer.error?.data.httpStatus)).toEqual([400, 400]);
    expect(await countEvents(app().sql, actor.organizationId)).toBe(before);

    const reads = await fetch(`${url}/matters.list,events.list?batch=1&input=${encodeURIComponent("{}")}`, {
      headers: { authorization: authorization(), "idempotency-key": "ignored-on-reads" },
    });
    expect(reads.status).toBe(200);
  });

  it("answers in the current version, whatever the key is pinned to, and records that version on its events", async () => {
    const pinned = await app().mintKey();
    await app().sql`update api_keys set pinned_version = '2026-06-11' where id = ${pinned.keyId}`;
    const response = await fetch(`${url}/matters.create`, {
      method: "POST",
      headers: { authorization: `Bearer ${pinned.key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Pinned v. Current" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("svc-version")).toBe("2026-07-05");
    const [event] = await app().sql<{ api_version: string }[]>`
      select api_version from events where organization_id = ${pinned.organizationId}`;
    expect(event?.api_version).toBe("2026-07-05");
  });
});
