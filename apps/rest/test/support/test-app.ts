import { createTestDatabase } from "@crs/db/testing";
import { createServiceDeps, issueLiveKey, mintSandboxKey, type RateLimitPolicy, type ServiceDeps } from "@crs/services";
import type { FastifyInstance } from "fastify";
import postgres from "postgres";
import { afterAll, beforeAll } from "vitest";
import { buildRestApp } from "../../src/app";

/** Fixed secrets, so tests can forge keys with a different one and verify signatures offline. */
export const TEST_SECRETS = {
  keySigningSecret: "rest-integration-tests-key-signing-secret-0001",
  eventSigningSeed: "5a".repeat(32),
  webhookSecretKey: "c3".repeat(32),
} as const;

/** The public origin the app is configured with (what the mint response reports as base_url). */
export const PUBLIC_BASE_URL = "https://api.sandbox.test";

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

export interface TestResponse {
  status: number;
  headers: Headers;
  /** the raw body text, byte for byte */
  text: string;
  /** the parsed JSON body (undefined when the body is not JSON) */
  json: unknown;
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
  /** where the app listens (real HTTP) */
  url: string;
  /** a direct connection to the test database, for counting rows and tampering */
  sql: postgres.Sql;
  request: (method: string, path: string, options?: RequestOptions) => Promise<TestResponse>;
  /** a new sandbox organization and key, minted through the service (not rate limited by IP) */
  mintKey: () => Promise<TestKey>;
  /** a live key with exactly these scopes (in a new live organization unless one is given) */
  keyWithScopes: (scopes: readonly string[] | "all", options?: LiveKeyOptions) => Promise<TestKey>;
  close: () => Promise<void>;
}

export interface StartOptions {
  /** reuse an existing database (a second "process" on the same data); it is not dropped on close */
  databaseUrl?: string;
}

/** A fresh migrated database, the service deps, and the REST app listening on a random port. */
export async function startTestApp(options: StartOptions = {}): Promise<TestApp> {
  const database = options.databaseUrl ? null : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? database?.url ?? "";
  const deps = createServiceDeps({ databaseUrl, secrets: TEST_SECRETS });
  const app = await buildRestApp({ deps, baseUrl: PUBLIC_BASE_URL, logLevel: "silent" });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("the test app has no TCP address");
  const url = `http://127.0.0.1:${address.port}`;
  const sql = postgres(databaseUrl, { max: 4, onnotice: () => {} });

  let closed = false;
  return {
    app,
    deps,
    databaseUrl,
    url,
    sql,
    request: (method, path, requestOptions = {}) => send(url, method, path, requestOptions),
    mintKey: async () => {
      const minted = await mintSandboxKey(deps, { baseUrl: PUBLIC_BASE_URL, docsUrl: `${PUBLIC_BASE_URL}/docs` });
      return {
        key: minted.key,
        keyId: minted.key_id,
        organizationId: minted.organization_id,
        environment: "sandbox",
      };
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
