import { LEGACY_SCOPES, SCOPES } from "@crs/contract";
import { signApiKey } from "@crs/core";
import type { Sql } from "postgres";
import { describe, expect, it } from "vitest";
import { VerifiedTokens, verifiedTokensFor } from "../src/auth/verified-tokens";

const SECRET = "a-signing-secret-of-sufficient-length";
const keyFor = (n: number, grants = ["matters:read"]) =>
  signApiKey("sandbox", { kid: `key_${n}`, org: "org_a", env: "sandbox", grants, iat: 1_780_000_000 }, SECRET);

describe("verified tokens", () => {
  it("verify a token once and answer later calls from memory with the same claims and scopes", () => {
    const tokens = new VerifiedTokens(SECRET);
    const token = keyFor(1, ["matters:read", "matters:write"]);
    const first = tokens.verify(token);
    expect(first?.claims.kid).toBe("key_1");
    expect([...(first?.scopes ?? [])].sort()).toEqual(["matters:read", "matters:write"]);
    expect(tokens.verify(token)).toBe(first);
    expect(tokens.size).toBe(1);
  });

  it("grant the 2026-06-11 groups' scopes to a legacy key only, by preset or by name", () => {
    const tokens = new VerifiedTokens(SECRET);
    const claims = { kid: "key_9", org: "org_a", env: "sandbox" as const, iat: 1_780_000_000 };
    const scopesOf = (kind: "sandbox" | "legacy_sandbox", grants: string[]) =>
      tokens.verify(signApiKey(kind, { ...claims, grants }, SECRET))?.scopes;
    const currentPreset = scopesOf("sandbox", ["preset:sandbox"]);
    const legacyPreset = scopesOf("legacy_sandbox", ["preset:sandbox"]);
    expect(currentPreset?.size).toBe(SCOPES.length);
    expect(legacyPreset?.size).toBe(SCOPES.length + LEGACY_SCOPES.length);
    for (const scope of LEGACY_SCOPES) {
      expect(currentPreset?.has(scope)).toBe(false);
      expect(legacyPreset?.has(scope)).toBe(true);
    }
    expect([...(scopesOf("sandbox", ["debtors:write", "matters:read"]) ?? [])]).toEqual(["matters:read"]);
    expect([...(scopesOf("legacy_sandbox", ["debtors:write", "matters:read"]) ?? [])].sort()).toEqual([
      "debtors:write",
      "matters:read",
    ]);
  });

  it("refuse a token whose MAC is wrong, even one character away from a remembered token, and keep nothing of it", () => {
    const tokens = new VerifiedTokens(SECRET);
    const token = keyFor(1);
    expect(tokens.verify(token)).not.toBeNull();
    const last = token.at(-1) === "A" ? "B" : "A";
    expect(tokens.verify(token.slice(0, -1) + last)).toBeNull();
    expect(tokens.verify("svc_test_garbage")).toBeNull();
    expect(tokens.size).toBe(1);
  });

  it("refuse a token signed under another secret", () => {
    expect(new VerifiedTokens(`${SECRET}-rotated`).verify(keyFor(1))).toBeNull();
  });

  it("hold at most their capacity, dropping the oldest first", () => {
    const tokens = new VerifiedTokens(SECRET, 3);
    const first = tokens.verify(keyFor(1));
    for (const n of [2, 3, 4]) tokens.verify(keyFor(n));
    expect(tokens.size).toBe(3);
    const again = tokens.verify(keyFor(1));
    expect(again).not.toBe(first);
    expect(again?.claims).toEqual(first?.claims);
  });

  it("share claims that no caller can change", () => {
    const verified = new VerifiedTokens(SECRET).verify(keyFor(1))!;
    expect(() => {
      (verified.claims as { org: string }).org = "org_b";
    }).toThrow(TypeError);
    expect(() => (verified.claims.grants as string[]).push("matters:write")).toThrow(TypeError);
  });

  it("are kept per database client, and start again when the signing secret changes", () => {
    const sql = {} as Sql;
    const tokens = verifiedTokensFor(sql, SECRET);
    expect(verifiedTokensFor(sql, SECRET)).toBe(tokens);
    expect(tokens.verify(keyFor(1))).not.toBeNull();
    const rotated = verifiedTokensFor(sql, `${SECRET}-rotated`);
    expect(rotated.verify(keyFor(1))).toBeNull();
    expect(verifiedTokensFor({} as Sql, SECRET)).not.toBe(tokens);
  });
});
