/**
 * The tRPC server in-process on a real database, through the typed client of @crs/client: the same
 * service functions, keys, scopes and error envelope as REST.
 */
import type { AddressInfo } from "node:net";
import { createInternalClient, type InternalClient } from "@crs/client";
import { ListQuery, type Matter } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import {
  type Actor,
  authenticateKey,
  createServiceDeps,
  issueLiveKey,
  listMatters,
  mintSandboxKey,
  retrieveMatter,
  retrieveMatterDashboard,
  verifyEventChain,
} from "@crs/services";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppRouter } from "../src/router";
import { createTrpcServer } from "../src/server";

const SECRETS = {
  keySigningSecret: "trpc-test-key-signing-secret-0123456789abcdef",
  eventSigningSeed: "3c".repeat(32),
  webhookSecretKey: "4d".repeat(32),
};

type Deps = ReturnType<typeof createServiceDeps>;
type Server = ReturnType<typeof createTrpcServer>;

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let deps: Deps | undefined;
let server: Server | undefined;
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

async function actorFor(key: string): Promise<Actor> {
  const authenticated = await authenticateKey(need(deps, "deps"), key, "current");
  return {
    organizationId: authenticated.organizationId,
    environment: authenticated.environment,
    keyId: authenticated.keyId,
    scopes: authenticated.scopes,
    apiVersion: authenticated.pinnedVersion,
    requestId: "req_test_direct_service_call",
  };
}

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
  database = await createTestDatabase();
  deps = createServiceDeps({ databaseUrl: database.url, secrets: SECRETS });
  const trpcServer = createTrpcServer(deps);
  server = trpcServer;
  await new Promise<void>((resolve) => trpcServer.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(trpcServer.address() as AddressInfo).port}/trpc`;

  const urls = { baseUrl: "http://127.0.0.1:3000", docsUrl: "http://127.0.0.1:3000/docs" };
  sandboxKey = (await mintSandboxKey(deps, urls)).key;
  client = createInternalClient({ url, apiKey: sandboxKey });
  actor = await actorFor(sandboxKey);
  otherClient = createInternalClient({ url, apiKey: (await mintSandboxKey(deps, urls)).key });
  const readOnly = await issueLiveKey(deps, {
    plan: "institutional",
    organizationName: "Read-only Institution",
    scopes: ["matters:read"],
    rateLimit: { perSecond: 100, burst: 200 },
  });
  readOnlyClient = createInternalClient({ url, apiKey: readOnly.key });
});

afterAll(async () => {
  const trpcServer = server;
  if (trpcServer) {
    const closed = new Promise<void>((resolve) => trpcServer.close(() => resolve()));
    trpcServer.closeAllConnections();
    await closed;
  }
  await deps?.close();
  await database?.drop();
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
    expect(created).toEqual(await retrieveMatter(need(deps, "deps"), actor, created.id));
    matter = created;
  });

  it("get and list answer what the services answer", async () => {
    const m = need(matter, "matter");
    expect(await client.matters.get.query({ matter_id: m.id })).toEqual(
      await retrieveMatter(need(deps, "deps"), actor, m.id),
    );
    const list = await client.matters.list.query();
    expect(list).toEqual(await listMatters(need(deps, "deps"), actor, ListQuery.parse({})));
    expect(list.data.map((item) => item.id)).toEqual([m.id]);
    expect(await client.matters.list.query({ limit: 1 })).toMatchObject({ object: "list", has_more: false });
  });

  it("update changes the matter as the service records it", async () => {
    const m = need(matter, "matter");
    const updated = await client.matters.update.mutate({
      matter_id: m.id,
      changes: { name: "Acme Holdings v. Doe", status: "on_hold", lead_counsel: "J. Counsel" },
    });
    expect(updated).toMatchObject({
      id: m.id,
      name: "Acme Holdings v. Doe",
      status: "on_hold",
      lead_counsel: "J. Counsel",
      created_at: m.created_at,
    });
    expect(updated).toEqual(await retrieveMatter(need(deps, "deps"), actor, m.id));
  });

  it("dashboard is the service's dashboard", async () => {
    const m = need(matter, "matter");
    const dashboard = await client.matters.dashboard.query({ matter_id: m.id });
    const expected = await retrieveMatterDashboard(need(deps, "deps"), actor, m.id);
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
    const closed = await client.matters.close.mutate({ matter_id: m.id, close: { reason: "settled", notes: "Paid" } });
    expect(closed).toMatchObject({ id: m.id, status: "closed", close_reason: "settled", close_notes: "Paid" });
    expect(closed.closed_at).toEqual(expect.any(String));
    expect(closed).toEqual(await retrieveMatter(need(deps, "deps"), actor, m.id));

    const error = await failureOf(client.matters.update.mutate({ matter_id: m.id, changes: { name: "Too late" } }));
    expect(error.data?.code).toBe("CONFLICT");
    expect(error.data?.httpStatus).toBe(409);
    expect(error.data?.error.code).toBe("conflict");
    expect((await retrieveMatter(need(deps, "deps"), actor, m.id)).name).toBe("Acme Holdings v. Doe");
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
    const direct = await verifyEventChain(need(deps, "deps"), actor);
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
    const writeError = await failureOf(
      otherClient.matters.update.mutate({ matter_id: mine.id, changes: { name: "Hijacked" } }),
    );
    expect(writeError.data?.error.code).toBe("not_found");
    expect((await retrieveMatter(need(deps, "deps"), actor, mine.id)).name).toBe("Private matter");
  });

  it("invalid create input: invalid_request naming every bad field, and nothing written", async () => {
    const before = await listMatters(need(deps, "deps"), actor, ListQuery.parse({}));
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
    expect(await listMatters(need(deps, "deps"), actor, ListQuery.parse({}))).toEqual(before);
  });

  it("text a database cannot store: 422 naming the field, never a 5xx, nothing written", async () => {
    const before = await listMatters(need(deps, "deps"), actor, ListQuery.parse({}));
    for (const input of [{ name: "a\u0000b" }, { name: "ok", notes: "\ud800" }]) {
      const error = await failureOf(client.matters.create.mutate(input));
      expect(error.data?.httpStatus).toBe(422);
      expect(error.data?.error.code).toBe("invalid_request");
      expect(error.data?.error.param).toBe(Object.keys(input).at(-1));
    }
    expect(await listMatters(need(deps, "deps"), actor, ListQuery.parse({}))).toEqual(before);
  });
});

describe("rate limits over tRPC", () => {
  it("draw on the key's shared bucket, with the same headers as REST, and 429 with Retry-After", async () => {
    const limited = await issueLiveKey(need(deps, "deps"), {
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
