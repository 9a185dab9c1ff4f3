import type { AddressInfo } from "node:net";
import { LEGACY_DEPRECATED_AT } from "@crs/contract";
import type { CompatibilityWindow } from "@crs/core";
import { createTestDatabase } from "@crs/db/testing";
import { buildRestApp } from "@crs/rest/app";
import {
  createServiceDeps,
  issueLiveKey,
  issueSandboxKey,
  type RateLimitPolicy,
  type ServiceDeps,
} from "@crs/services";
import { createTrpcServer } from "@crs/trpc";
import type { FastifyInstance } from "fastify";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { testResolver } from "./test-resolver";

/** Fixed secrets, so tests can forge keys with a different one and verify signatures offline. */
export const TEST_SECRETS = {
  keySigningSecret: "rest-integration-tests-key-signing-secret-0001",
  eventSigningSeed: "5a".repeat(32),
  webhookSecretKey: "c3".repeat(32),
} as const;

/** The public origin the app is configured with (what the mint response reports as base_url). */
export const PUBLIC_BASE_URL = "https://api.sandbox.test";
/**
 * A compatibility window still open whatever today's date, for tests of what the legacy listener's
 * operations do rather than of its sunset.
 */
export const OPEN_LEGACY_WINDOW: CompatibilityWindow = {
  deprecatedAt: new Date(LEGACY_DEPRECATED_AT),
  sunset: new Date("2100-01-01T00:00:00Z"),
};

/** The legacy listener's public origin (the base_url of its keys). */
export const LEGACY_BASE_URL = "https://legacy.sandbox.test";

export interface TestKey {
  key: string;
  keyId: string;
  organizationId: string;
  environment: "sandbox" | "live";
}

export interface RequestOptions {
  /** Sent as `Authorization: Bearer <key>`; omit or null for no Authorization header. */
  key?: string | null;
  /** Serialized as JSON with `Content-Type: application/json`. */
  body?: unknown;
  /** Sent as is (with `Content-Type: application/json` unless headers say otherwise). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface RpcOptions {
  key?: string | null;
  /** the procedure's input; omitted: none */
  input?: unknown;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  /** the raw body text, byte for byte */
  text: string;
  /** the parsed JSON body (undefined when the body is not JSON) */
  json: unknown;
  /** the public origin of the listener that answered (its doc_url base); absent: the current one */
  publicBaseUrl?: string;
}

export interface LiveKeyOptions {
  plan?: "operator" | "institutional";
  organizationName?: string;
  organizationId?: string;
  rateLimit?: RateLimitPolicy;
}

export interface TestApp {
  app: FastifyInstance;
  deps: ServiceDeps & { close: () => Promise<void> };
  databaseUrl: string;
  /** where the REST app listens (real HTTP) */
  url: string;
  /** the tRPC endpoint on the same deps, e.g. http://127.0.0.1:41234/trpc */
  trpcUrl: string;
  /** a direct connection to the test database, for counting rows and tampering */
  sql: postgres.Sql;
  /** a REST call */
  request: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>;
  /** where the legacy listener listens (only with `legacyWindow`) */
  legacyUrl: string | null;
  /** a call to the legacy listener (only with `legacyWindow`) */
  legacyRequest: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>;
  /** a raw tRPC call over HTTP, one procedure per request (statuses and headers as a client sees them) */
  rpc: (type: "query" | "mutation", procedure: string, options?: RpcOptions) => Promise<TestResponse>;
  /** a new sandbox organization and key, minted through the service (not rate limited by IP) */
  mintKey: () => Promise<TestKey>;
  /** a new sandbox organization and its svc_legacy_test_ key, for the legacy listener */
  mintLegacyKey: () => Promise<TestKey>;
  /** a live key with exactly these scopes (in a new live organization unless one is given) */
  keyWithScopes: (scopes: readonly string[] | "all", options?: LiveKeyOptions) => Promise<TestKey>;
  close: () => Promise<void>;
}

export interface StartOptions {
  /** reuse an existing database (a second "process" on the same data); it is not dropped on close */
  databaseUrl?: string;
  /** the list live organizations are screened against, as SANCTIONS_LIST_PATH would load it */
  liveSanctionsList?: ServiceDeps["sanctionsLists"]["live"];
  /** the service's clock (deadline statuses, validation dates); default the wall clock */
  clock?: () => Date;
  /** both apps write their log lines (info and up) here; unset: they are silent */
  logStream?: { write(line: string): void };
  /** also start the legacy (2026-06-11) listener on the same deps, with this compatibility window */
  legacyWindow?: CompatibilityWindow;
  /** how much JSON a page of jobs or events may hold before it stops short of its limit; default the service's */
  listPageMaxBytes?: number;
}

/** A fresh migrated database, the service deps, and the REST app listening on a random port. */
export async function startTestApp(options: StartOptions = {}): Promise<TestApp> {
  const database = options.databaseUrl ? null : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? database?.url ?? "";
  const deps = createServiceDeps({
    databaseUrl,
    secrets: TEST_SECRETS,
    publicBaseUrl: PUBLIC_BASE_URL,
    liveSanctionsList: options.liveSanctionsList ?? null,
    ...(options.clock ? { clock: options.clock } : {}),
    resolveHostname: testResolver,
  });
  if (options.listPageMaxBytes !== undefined) deps.listPageMaxBytes = options.listPageMaxBytes;
  const logging = options.logStream ? { logLevel: "info", logStream: options.logStream } : { logLevel: "silent" };
  const app = await buildRestApp({ deps, ...logging });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the test app has no TCP address");
  const url = `http://127.0.0.1:${address.port}`;
  const legacy = options.legacyWindow
    ? await buildRestApp({
        deps: { ...deps, publicBaseUrl: LEGACY_BASE_URL },
        surface: "legacy",
        legacy: { window: options.legacyWindow, currentBaseUrl: PUBLIC_BASE_URL },
        ...logging,
      })
    : null;
  let legacyUrl: string | null = null;
  if (legacy) {
    await legacy.listen({ host: "127.0.0.1", port: 0 });
    legacyUrl = `http://127.0.0.1:${(legacy.server.address() as AddressInfo).port}`;
  }
  const trpc = createTrpcServer(deps, logging);
  await new Promise<void>((resolve) => trpc.listen(0, "127.0.0.1", resolve));
  const trpcUrl = `http://127.0.0.1:${(trpc.address() as AddressInfo).port}/trpc`;
  const sql = postgres(databaseUrl, { max: 4, onnotice: () => {} });

  let closed = false;
  return {
    app,
    deps,
    databaseUrl,
    url,
    trpcUrl,
    sql,
    request: (method, path, requestOptions = {}) => send(url, method, path, requestOptions),
    legacyUrl,
    legacyRequest: async (method, path, requestOptions = {}) => {
      if (!legacyUrl) throw new Error("start the test app with legacyWindow to reach the legacy listener");
      return { ...(await send(legacyUrl, method, path, requestOptions)), publicBaseUrl: LEGACY_BASE_URL };
    },
    rpc: (type, procedure, rpcOptions = {}) => sendRpc(trpcUrl, type, procedure, rpcOptions),
    mintKey: async () => {
      const minted = await issueSandboxKey(deps);
      return { key: minted.key, keyId: minted.key_id, organizationId: minted.organization_id, environment: "sandbox" };
    },
    mintLegacyKey: async () => {
      const minted = await issueSandboxKey(deps, { kind: "legacy_sandbox" });
      return { key: minted.key, keyId: minted.key_id, organizationId: minted.organization_id, environment: "sandbox" };
    },
    keyWithScopes: async (scopes, liveOptions = {}) => {
      const plan = liveOptions.plan ?? "operator";
      const issued = await issueLiveKey(deps, {
        plan,
        scopes: scopes === "all" ? "all" : [...scopes],
        organizationName: liveOptions.organizationName ?? "Live test organization",
        ...(liveOptions.organizationId ? { organizationId: liveOptions.organizationId } : {}),
        ...(liveOptions.rateLimit ? { rateLimit: liveOptions.rateLimit } : {}),
      });
      return { key: issued.key, keyId: issued.key_id, organizationId: issued.organization_id, environment: "live" };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await app.close();
      await legacy?.close();
      const trpcClosed = new Promise<void>((resolve) => trpc.close(() => resolve()));
      trpc.closeAllConnections();
      await trpcClosed;
      await sql.end({ timeout: 5 });
      await deps.close();
      await database?.drop();
    },
  };
}

async function send(origin: string, method: string, path: string, options: RequestOptions): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers["content-type"] = "application/json";
  Object.assign(headers, options.headers ?? {});
  const response = await fetch(`${origin}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  let json: unknown;
  if ((response.headers.get("content-type") ?? "").includes("application/json") && text !== "") {
    json = JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * One tRPC procedure call over HTTP, unbatched: a query is GET with `?input=`, a mutation a POST
 * of the input. `json` of a failure is the REST-shaped envelope the error carries
 * (`{error, audit_ref}`), so the same assertions apply to both surfaces; of a success, the result.
 */
async function sendRpc(
  endpoint: string,
  type: "query" | "mutation",
  procedure: string,
  options: RpcOptions,
): Promise<TestResponse> {
  const headers: Record<string, string> = {};
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  Object.assign(headers, options.headers ?? {});
  const encoded = options.input === undefined ? undefined : JSON.stringify(options.input);
  const response =
    type === "query"
      ? await fetch(`${endpoint}/${procedure}${encoded === undefined ? "" : `?input=${encodeURIComponent(encoded)}`}`, {
          headers,
        })
      : await fetch(`${endpoint}/${procedure}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          ...(encoded === undefined ? {} : { body: encoded }),
        });
  const text = await response.text();
  const parsed = text === "" ? undefined : (JSON.parse(text) as Record<string, unknown>);
  const failure = parsed?.error as { data?: { error?: unknown; audit_ref?: unknown } } | undefined;
  const json = failure
    ? { error: failure.data?.error, audit_ref: failure.data?.audit_ref }
    : (parsed?.result as { data?: unknown } | undefined)?.data;
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * Starts one test app for the file (beforeAll) and closes it (afterAll); the accessor returns it
 * inside tests and suites.
 */
export function useTestApp(options: StartOptions = {}): () => TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await startTestApp(options);
  });
  afterAll(async () => {
    await current?.close();
  });
  return () => {
    if (!current) throw new Error("the test app is used before beforeAll started it");
    return current;
  };
}
