import { createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  API_KEY_PREFIXES,
  type ApiKeyClaims,
  checkKeyStatus,
  type KeyKind,
  type KeyRecord,
  signApiKey,
  verifyApiKey,
} from "../src/api-keys";

const SECRET = "test-secret-0123456789abcdef";
const OTHER_SECRET = "another-secret-fedcba9876543210";

const SANDBOX_CLAIMS: ApiKeyClaims = {
  kid: "key_01h00000000000000000000001",
  org: "org_01h00000000000000000000001",
  env: "sandbox",
  grants: ["sandbox"],
  iat: 1767225600,
};
const LIVE_CLAIMS: ApiKeyClaims = {
  kid: "key_01h00000000000000000000002",
  org: "org_01h00000000000000000000001",
  env: "live",
  grants: ["matters:read", "matters:write"],
  iat: 1767225601,
};

/** Builds a token with a valid MAC over any prefix and raw payload text, bypassing signApiKey's checks. */
function handMadeToken(prefix: string, payloadJson: string, secret = SECRET): string {
  const payload = Buffer.from(payloadJson, "utf8").toString("base64url");
  return handMadeTokenFromPayload(prefix, payload, secret);
}

function handMadeTokenFromPayload(prefix: string, payload: string, secret = SECRET): string {
  const mac = createHmac("sha256", secret)
    .update(prefix + payload)
    .digest("base64url");
  return `${prefix}${payload}.${mac}`;
}

/** Splits a token into prefix, payload and MAC. */
function parts(token: string, kind: KeyKind): { prefix: string; payload: string; mac: string } {
  const prefix = API_KEY_PREFIXES[kind];
  expect(token.startsWith(prefix)).toBe(true);
  const [payload = "", mac = ""] = token.slice(prefix.length).split(".");
  return { prefix, payload, mac };
}

/** The string with the character at `index` replaced by a different base64url character. */
function changeCharAt(text: string, index: number): string {
  const current = text[index];
  const replacement = current === "A" ? "B" : "A";
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

describe("signApiKey / verifyApiKey round trip", () => {
  const cases: ReadonlyArray<readonly [KeyKind, ApiKeyClaims]> = [
    ["sandbox", SANDBOX_CLAIMS],
    ["live", LIVE_CLAIMS],
    ["legacy_sandbox", { ...SANDBOX_CLAIMS, kid: "key_01h00000000000000000000003" }],
  ];
  for (const [kind, claims] of cases) {
    it(`returns the same claims and kind ${kind} for a ${kind} key`, () => {
      const token = signApiKey(kind, claims, SECRET);
      expect(token.startsWith(API_KEY_PREFIXES[kind])).toBe(true);
      expect(verifyApiKey(token, SECRET)).toEqual({ ok: true, kind, claims });
    });
  }

  it("uses the documented token layout: prefix + base64url(JSON claims) + '.' + base64url(HMAC-SHA256(secret, prefix + payload))", () => {
    const token = signApiKey("sandbox", SANDBOX_CLAIMS, SECRET);
    expect(token).toBe(handMadeToken("svc_test_", JSON.stringify(SANDBOX_CLAIMS)));
  });

  it("round-trips arbitrary claims for every kind", () => {
    const arbitraryCase = fc
      .record({
        kind: fc.constantFrom<KeyKind>("sandbox", "live", "legacy_sandbox"),
        kid: fc.string(),
        org: fc.string(),
        grants: fc.array(fc.string()),
        iat: fc.integer({ min: 0, max: 2 ** 40 }),
      })
      .map(({ kind, ...rest }) => ({
        kind,
        claims: { ...rest, env: kind === "live" ? "live" : "sandbox" } satisfies ApiKeyClaims,
      }));
    fc.assert(
      fc.property(arbitraryCase, ({ kind, claims }) => {
        expect(verifyApiKey(signApiKey(kind, claims, SECRET), SECRET)).toEqual({ ok: true, kind, claims });
      }),
    );
  });

  it("tells a legacy sandbox key apart from a sandbox key by its prefix", () => {
    const legacy = verifyApiKey(signApiKey("legacy_sandbox", SANDBOX_CLAIMS, SECRET), SECRET);
    const current = verifyApiKey(signApiKey("sandbox", SANDBOX_CLAIMS, SECRET), SECRET);
    expect(legacy.ok && legacy.kind).toBe("legacy_sandbox");
    expect(current.ok && current.kind).toBe("sandbox");
  });
});

describe("verifyApiKey: forged and tampered tokens", () => {
  it("rejects a token signed with another secret as bad_signature", () => {
    const forged = signApiKey("live", LIVE_CLAIMS, OTHER_SECRET);
    expect(verifyApiKey(forged, SECRET)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("rejects a token with one payload character changed as bad_signature", () => {
    const token = signApiKey("live", LIVE_CLAIMS, SECRET);
    const { prefix, payload, mac } = parts(token, "live");
    for (const index of [0, Math.floor(payload.length / 2), payload.length - 1]) {
      const tampered = `${prefix}${changeCharAt(payload, index)}.${mac}`;
      expect(tampered).not.toBe(token);
      expect(verifyApiKey(tampered, SECRET)).toEqual({ ok: false, reason: "bad_signature" });
    }
  });

  it("rejects a token with one MAC character changed as bad_signature", () => {
    const token = signApiKey("sandbox", SANDBOX_CLAIMS, SECRET);
    const { prefix, payload, mac } = parts(token, "sandbox");
    expect(verifyApiKey(`${prefix}${payload}.${changeCharAt(mac, 0)}`, SECRET)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifyApiKey(`${prefix}${payload}.${mac.slice(0, -1)}`, SECRET)).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    expect(verifyApiKey(`${prefix}${payload}.${mac}A`, SECRET)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("rejects the payload of one key under the MAC of another as bad_signature", () => {
    const a = parts(signApiKey("live", LIVE_CLAIMS, SECRET), "live");
    const b = parts(signApiKey("live", { ...LIVE_CLAIMS, grants: ["*"] }, SECRET), "live");
    expect(verifyApiKey(`${a.prefix}${b.payload}.${a.mac}`, SECRET)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("checks the MAC before parsing, so an unsigned malformed payload is bad_signature", () => {
    expect(verifyApiKey("svc_test_not-json.AAAA", SECRET)).toEqual({ ok: false, reason: "bad_signature" });
  });
});

describe("verifyApiKey: environments", () => {
  it("refuses to sign a key whose kind and environment disagree", () => {
    expect(() => signApiKey("live", SANDBOX_CLAIMS, SECRET)).toThrow(/environment live/);
    expect(() => signApiKey("sandbox", LIVE_CLAIMS, SECRET)).toThrow(/environment sandbox/);
    expect(() => signApiKey("legacy_sandbox", LIVE_CLAIMS, SECRET)).toThrow(/environment sandbox/);
  });

  it("rejects a sandbox token re-prefixed as live as bad_signature, because the prefix is inside the MAC", () => {
    const token = signApiKey("sandbox", SANDBOX_CLAIMS, SECRET);
    const swapped = `svc_live_${token.slice("svc_test_".length)}`;
    expect(verifyApiKey(swapped, SECRET)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("rejects a legacy sandbox token re-prefixed as sandbox as bad_signature", () => {
    const token = signApiKey("legacy_sandbox", SANDBOX_CLAIMS, SECRET);
    const swapped = `svc_test_${token.slice("svc_legacy_test_".length)}`;
    expect(verifyApiKey(swapped, SECRET)).toEqual({ ok: false, reason: "bad_signature" });
  });

  it("rejects a correctly MACed live-prefixed token whose claims say sandbox as environment_mismatch", () => {
    const token = handMadeToken("svc_live_", JSON.stringify(SANDBOX_CLAIMS));
    expect(verifyApiKey(token, SECRET)).toEqual({ ok: false, reason: "environment_mismatch" });
  });

  it("rejects correctly MACed sandbox-prefixed tokens whose claims say live as environment_mismatch", () => {
    expect(verifyApiKey(handMadeToken("svc_test_", JSON.stringify(LIVE_CLAIMS)), SECRET)).toEqual({
      ok: false,
      reason: "environment_mismatch",
    });
    expect(verifyApiKey(handMadeToken("svc_legacy_test_", JSON.stringify(LIVE_CLAIMS)), SECRET)).toEqual({
      ok: false,
      reason: "environment_mismatch",
    });
  });
});

describe("verifyApiKey: malformed tokens", () => {
  const malformed = { ok: false, reason: "malformed" } as const;

  it("rejects the empty string", () => {
    expect(verifyApiKey("", SECRET)).toEqual(malformed);
  });

  it("rejects a token without a known prefix", () => {
    const token = signApiKey("live", LIVE_CLAIMS, SECRET);
    expect(verifyApiKey(token.slice("svc_live_".length), SECRET)).toEqual(malformed);
    expect(verifyApiKey(`svc_prod_${token.slice("svc_live_".length)}`, SECRET)).toEqual(malformed);
    expect(verifyApiKey(token.toUpperCase(), SECRET)).toEqual(malformed);
    expect(verifyApiKey(handMadeToken("sk_live_", JSON.stringify(LIVE_CLAIMS)), SECRET)).toEqual(malformed);
  });

  it("rejects a token without the dot, with extra dots or with an empty part", () => {
    const token = signApiKey("live", LIVE_CLAIMS, SECRET);
    const { prefix, payload, mac } = parts(token, "live");
    expect(verifyApiKey(`${prefix}${payload}${mac}`, SECRET)).toEqual(malformed);
    expect(verifyApiKey(`${prefix}${payload}.${mac}.x`, SECRET)).toEqual(malformed);
    expect(verifyApiKey(`${prefix}.${mac}`, SECRET)).toEqual(malformed);
    expect(verifyApiKey(`${prefix}${payload}.`, SECRET)).toEqual(malformed);
    expect(verifyApiKey(prefix, SECRET)).toEqual(malformed);
  });

  it("rejects a correctly MACed payload that is not base64url JSON", () => {
    expect(verifyApiKey(handMadeTokenFromPayload("svc_test_", "!!!!"), SECRET)).toEqual(malformed);
    expect(verifyApiKey(handMadeToken("svc_test_", "not json"), SECRET)).toEqual(malformed);
    expect(verifyApiKey(handMadeToken("svc_test_", '{"kid":'), SECRET)).toEqual(malformed);
  });

  it("rejects correctly MACed JSON that is not a claims object", () => {
    for (const json of ["null", "42", '"svc"', "[]", "true"]) {
      expect(verifyApiKey(handMadeToken("svc_test_", json), SECRET)).toEqual(malformed);
    }
  });

  it("rejects correctly MACed claims with a missing or mistyped field", () => {
    const { kid, org, env, grants, iat } = SANDBOX_CLAIMS;
    const broken: ReadonlyArray<Record<string, unknown>> = [
      { org, env, grants, iat },
      { kid, env, grants, iat },
      { kid, org, grants, iat },
      { kid, org, env, iat },
      { kid, org, env, grants },
      { kid: 1, org, env, grants, iat },
      { kid, org: null, env, grants, iat },
      { kid, org, env: "staging", grants, iat },
      { kid, org, env, grants: "sandbox", iat },
      { kid, org, env, grants: ["sandbox", 7], iat },
      { kid, org, env, grants, iat: "1767225600" },
    ];
    for (const claims of broken) {
      expect(verifyApiKey(handMadeToken("svc_test_", JSON.stringify(claims)), SECRET)).toEqual(malformed);
    }
  });
});

describe("checkKeyStatus", () => {
  const record: KeyRecord = { organizationId: LIVE_CLAIMS.org, environment: "live", revokedAt: null };

  it("is active when the record matches organization and environment and is not revoked", () => {
    expect(checkKeyStatus(LIVE_CLAIMS, record)).toBe("active");
  });

  it("is revoked once revokedAt is set", () => {
    expect(checkKeyStatus(LIVE_CLAIMS, { ...record, revokedAt: new Date("2026-01-01T00:00:00.000Z") })).toBe("revoked");
  });

  it("is unknown without a record", () => {
    expect(checkKeyStatus(LIVE_CLAIMS, undefined)).toBe("unknown");
  });

  it("is unknown when the record belongs to another organization", () => {
    expect(checkKeyStatus(LIVE_CLAIMS, { ...record, organizationId: "org_01h00000000000000000000009" })).toBe(
      "unknown",
    );
  });

  it("is unknown when the record belongs to another environment", () => {
    expect(checkKeyStatus(LIVE_CLAIMS, { ...record, environment: "sandbox" })).toBe("unknown");
  });

  it("is unknown, not revoked, for a revoked record of another organization", () => {
    expect(
      checkKeyStatus(LIVE_CLAIMS, {
        organizationId: "org_01h00000000000000000000009",
        environment: "live",
        revokedAt: new Date("2026-01-01T00:00:00.000Z"),
      }),
    ).toBe("unknown");
  });
});
