import { AppError, SCOPES } from "@crs/contract";
import { createTestDatabase } from "@crs/db/testing";
import { authenticateKey, createServiceDeps } from "@crs/services";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childEnv, exitWithin, startNode, TEST_SECRETS, TEST_SECRETS_ENV } from "./support/processes";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let deps: ReturnType<typeof createServiceDeps>;

beforeAll(async () => {
  database = await createTestDatabase();
  deps = createServiceDeps({
    databaseUrl: database.url,
    secrets: TEST_SECRETS,
    publicBaseUrl: "http://127.0.0.1:3000",
    poolSize: 2,
  });
});

afterAll(async () => {
  await deps?.close();
  await database?.drop();
});

async function runKeysCommand(...args: string[]) {
  return runKeysCommandWith({ DATABASE_URL: database.url, SKIP_MIGRATIONS: "1", ...TEST_SECRETS_ENV }, ...args);
}

async function runKeysCommandWith(env: Record<string, string>, ...args: string[]) {
  const proc = startNode("keys", ["--import", "tsx", "scripts/keys.ts", ...args], childEnv(env));
  const exit = await exitWithin(proc, 60_000);
  return { code: exit.code, output: proc.output() };
}

/** The JSON object a command printed (stdout), ignoring the notices around it. */
function printedJson(output: string): Record<string, unknown> {
  return JSON.parse(output.slice(output.indexOf("{"), output.lastIndexOf("}") + 1));
}

async function countKeys(): Promise<number> {
  const rows = await deps.sql<{ count: string }[]>`select count(*)::text as count from api_keys`;
  return Number(rows[0]?.count);
}

function issuedKeyOf(output: string): { key: string; key_id: string; organization_id: string; scopes: string[] } {
  const json = output.slice(output.indexOf("{"), output.lastIndexOf("}") + 1);
  return JSON.parse(json);
}

describe("operator key commands (pnpm keys:issue / keys:revoke)", () => {
  it("issues a live key that authenticates with exactly the scopes asked for, and revokes it", async () => {
    const issued = await runKeysCommand(
      "issue",
      "--plan",
      "operator",
      "--org-name",
      "Acme",
      "--scopes",
      "matters:read,events:read",
    );
    expect(issued.code, issued.output).toBe(0);
    const key = issuedKeyOf(issued.output);
    expect(key.key.startsWith("svc_live_")).toBe(true);

    const authenticated = await authenticateKey(deps, key.key, "current");
    expect(authenticated.organizationId).toBe(key.organization_id);
    expect(authenticated.environment).toBe("live");
    expect([...authenticated.scopes].sort()).toEqual(["events:read", "matters:read"]);
    expect(authenticated.rateLimit).toEqual({ perSecond: 100, burst: 200 });
    // The command speaks the API's snake_case.
    expect(Object.keys(printedJson(issued.output)).sort()).toEqual(
      ["key", "key_id", "organization_id", "plan", "rate_limit", "scopes"].sort(),
    );
    expect(printedJson(issued.output).rate_limit).toEqual({ per_second: 100, burst: 200 });

    const revoked = await runKeysCommand("revoke", key.key_id);
    expect(revoked.code, revoked.output).toBe(0);
    const revocation = printedJson(revoked.output);
    expect(Object.keys(revocation).sort()).toEqual(["key_id", "organization_id", "revoked_at"]);
    expect(revocation).toMatchObject({ key_id: key.key_id, organization_id: key.organization_id });
    expect(new Date(String(revocation.revoked_at)).toISOString()).toBe(revocation.revoked_at);
    const refusal = await authenticateKey(deps, key.key, "current").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe("unauthenticated");
    expect((refusal as AppError).message).toMatch(/revoked/);
  });

  it("issues an operator of the internal API with every scope and operator:write", async () => {
    const issued = await runKeysCommand("issue", "--plan", "operator", "--scopes", "all,operator:write");
    expect(issued.code, issued.output).toBe(0);
    const authenticated = await authenticateKey(deps, issuedKeyOf(issued.output).key, "current");
    expect([...authenticated.scopes].sort()).toEqual([...SCOPES, "operator:write"].sort());
  });

  it("refuses unknown scopes and an institutional plan without a rate, and writes no key", async () => {
    const keysBefore = await countKeys();
    const unknownScope = await runKeysCommand("issue", "--plan", "operator", "--scopes", "matters:read,bogus");
    expect(unknownScope.code).toBe(1);
    expect(unknownScope.output).toContain("Unknown scopes: bogus");

    const noRate = await runKeysCommand("issue", "--plan", "institutional", "--scopes", "all");
    expect(noRate.code).toBe(1);
    expect(noRate.output).toMatch(/custom rate limit/);

    expect(await countKeys()).toBe(keysBefore);
  });

  it("explains each command with --help, without a database, and refuses a bad invocation with exit code 2", async () => {
    const issueHelp = await runKeysCommandWith({}, "issue", "--help");
    expect(issueHelp.code, issueHelp.output).toBe(0);
    expect(issueHelp.output).toContain("Usage: pnpm keys:issue");
    expect(issueHelp.output).toContain("--scopes all|a,b");

    const revokeHelp = await runKeysCommandWith({}, "revoke", "--help");
    expect(revokeHelp.code, revokeHelp.output).toBe(0);
    expect(revokeHelp.output).toContain("Usage: pnpm keys:revoke <key_id>");

    const noKeyId = await runKeysCommandWith({}, "revoke");
    expect(noKeyId.code).toBe(2);
    expect(noKeyId.output).toContain("usage:");
  });

  it("says in one line that the database is unreachable, and exits 1", async () => {
    const result = await runKeysCommandWith(
      { DATABASE_URL: "postgres://postgres@127.0.0.1:1/crs", ...TEST_SECRETS_ENV },
      "revoke",
      "key_01m80ngyzaw7h7srmzz9j6x5kj",
    );
    expect(result.code).toBe(1);
    expect(result.output.trim().split("\n")).toEqual([
      expect.stringMatching(/^not done: the database server at 127\.0\.0\.1:1 refused the connection/),
    ]);
  });

  it("answers an unknown key id with a clear error", async () => {
    const result = await runKeysCommand("revoke", "key_01m80ngyzaw7h7srmzz9j6x5kj");
    expect(result.code).toBe(1);
    expect(result.output).toContain("No such key");
  });
});
