import { readFileSync } from "node:fs";
import { formatWebhookSecret, signWebhookPayload } from "@crs/core";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { verifyWebhookSignature, WebhookSignatureError, type WebhookSignatureFailure } from "../src/index";

const SECRET = formatWebhookSecret(Buffer.alloc(32, 0x5a));
const NEW_SECRET = formatWebhookSecret(Buffer.alloc(32, 0xa5));
const BODY = JSON.stringify({
  id: "evt_01h00000000000000000000000",
  object: "event",
  type: "judgment.created",
  created: "2026-03-01T10:00:00.000Z",
  livemode: false,
  data: { judgment_id: "judgment_01h00000000000000000000001", caption: "Müller v. Ñoño" },
});
const T = 1_772_359_200; // 2026-03-01T10:00:00Z
const AT_T = new Date(T * 1000);

function failureOf(run: () => unknown): WebhookSignatureFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookSignatureError) return error.reason;
    throw error;
  }
  throw new Error("the signature was accepted");
}

const stripe = new Stripe("sk_test_not_used_no_requests_are_made");

describe("verifyWebhookSignature", () => {
  it("accepts the service's signature over the exact body, given as text or bytes", () => {
    const header = signWebhookPayload(SECRET, T, BODY);
    expect(verifyWebhookSignature(BODY, header, SECRET, 300, AT_T)).toEqual({ timestamp: T });
    expect(verifyWebhookSignature(Buffer.from(BODY, "utf8"), header, SECRET, 300, AT_T)).toEqual({ timestamp: T });
  });

  it("is not the only verifier that accepts it: the stripe package verifies the same header", () => {
    const t = Math.floor(Date.now() / 1000);
    const header = signWebhookPayload(SECRET, t, BODY);
    const event = stripe.webhooks.constructEvent(BODY, header, SECRET);
    expect(event.id).toBe("evt_01h00000000000000000000000");
    expect(stripe.webhooks.constructEvent(Buffer.from(BODY), header, SECRET).type).toBe("judgment.created");
  });

  it("accepts a header written by the stripe package's own signer", () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload: BODY, secret: SECRET, timestamp: T });
    expect(verifyWebhookSignature(BODY, header, SECRET, 300, AT_T)).toEqual({ timestamp: T });
  });

  it("refuses a body changed after signing, even by one byte or by re-serialization", () => {
    const header = signWebhookPayload(SECRET, T, BODY);
    const reserialized = JSON.stringify(JSON.parse(BODY), null, 2);
    for (const body of [BODY.replace("judgment.created", "judgment.createe"), `${BODY}\n`, reserialized]) {
      expect(failureOf(() => verifyWebhookSignature(body, header, SECRET, 300, AT_T))).toBe("signature_mismatch");
      expect(() => stripe.webhooks.constructEvent(body, header, SECRET, 300, undefined, T)).toThrow(
        Stripe.errors.StripeSignatureVerificationError,
      );
    }
  });

  it("refuses a signature made with another secret", () => {
    const header = signWebhookPayload(NEW_SECRET, T, BODY);
    expect(failureOf(() => verifyWebhookSignature(BODY, header, SECRET, 300, AT_T))).toBe("signature_mismatch");
    expect(() => stripe.webhooks.constructEvent(BODY, header, SECRET, 300, undefined, T)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it("refuses a timestamp older or newer than the tolerance, and accepts one at its edge", () => {
    const header = signWebhookPayload(SECRET, T, BODY);
    const at = (seconds: number) => new Date((T + seconds) * 1000);
    expect(verifyWebhookSignature(BODY, header, SECRET, 300, at(300))).toEqual({ timestamp: T });
    expect(verifyWebhookSignature(BODY, header, SECRET, 300, at(-300))).toEqual({ timestamp: T });
    expect(failureOf(() => verifyWebhookSignature(BODY, header, SECRET, 300, at(301)))).toBe(
      "timestamp_outside_tolerance",
    );
    expect(failureOf(() => verifyWebhookSignature(BODY, header, SECRET, 300, at(-301)))).toBe(
      "timestamp_outside_tolerance",
    );
    const staleHeader = signWebhookPayload(SECRET, Math.floor(Date.now() / 1000) - 600, BODY);
    expect(() => stripe.webhooks.constructEvent(BODY, staleHeader, SECRET)).toThrow(/tolerance/i);
    expect(failureOf(() => verifyWebhookSignature(BODY, staleHeader, SECRET))).toBe("timestamp_outside_tolerance");
  });

  it("reports a stale but forged request as forged, not as stale", () => {
    const header = signWebhookPayload(NEW_SECRET, T - 3600, BODY);
    expect(failureOf(() => verifyWebhookSignature(BODY, header, SECRET, 300, AT_T))).toBe("signature_mismatch");
  });

  it("accepts a header with several v1 entries when any one matches, as during a secret rotation", () => {
    const rotating = signWebhookPayload([NEW_SECRET, SECRET], T, BODY);
    expect(rotating.match(/v1=/g)).toHaveLength(2);
    expect(verifyWebhookSignature(BODY, rotating, SECRET, 300, AT_T)).toEqual({ timestamp: T });
    expect(verifyWebhookSignature(BODY, rotating, NEW_SECRET, 300, AT_T)).toEqual({ timestamp: T });
    const now = Math.floor(Date.now() / 1000);
    expect(stripe.webhooks.constructEvent(BODY, signWebhookPayload([NEW_SECRET, SECRET], now, BODY), SECRET).id).toBe(
      "evt_01h00000000000000000000000",
    );
    const other = formatWebhookSecret(Buffer.alloc(32, 1));
    expect(failureOf(() => verifyWebhookSignature(BODY, rotating, other, 300, AT_T))).toBe("signature_mismatch");
  });

  it("accepts any of several receiver secrets", () => {
    const header = signWebhookPayload(NEW_SECRET, T, BODY);
    expect(verifyWebhookSignature(BODY, header, [SECRET, NEW_SECRET], 300, AT_T)).toEqual({ timestamp: T });
  });

  it("ignores unknown schemes and entries that are not SHA-256 digests", () => {
    const header = signWebhookPayload(SECRET, T, BODY);
    const withExtras = `${header.replace(",v1=", ",v0=abc,v2=zz,v1=short,v1=")}`;
    expect(verifyWebhookSignature(BODY, withExtras, SECRET, 300, AT_T)).toEqual({ timestamp: T });
    const spaced = header.replace(",", " , ");
    expect(verifyWebhookSignature(BODY, spaced, SECRET, 300, AT_T)).toEqual({ timestamp: T });
  });

  it("names a missing header, a header without t or v1, and a garbled header", () => {
    const header = signWebhookPayload(SECRET, T, BODY);
    const v1 = header.slice(header.indexOf("v1="));
    const cases: [string | undefined, WebhookSignatureFailure][] = [
      [undefined, "missing_header"],
      ["", "missing_header"],
      [v1, "malformed_header"],
      [`t=${T},t=${T},${v1}`, "malformed_header"],
      [`t=-5,${v1}`, "malformed_header"],
      [`t=1e9,${v1}`, "malformed_header"],
      ["garbage", "malformed_header"],
      [`t=${T}`, "no_signature"],
      [`t=${T},v0=${v1.slice(3)}`, "no_signature"],
    ];
    for (const [value, reason] of cases) {
      expect(failureOf(() => verifyWebhookSignature(BODY, value, SECRET, 300, AT_T))).toBe(reason);
    }
  });

  it("refuses to run without a secret or with a tolerance that would switch the replay check off", () => {
    const header = signWebhookPayload(SECRET, T, BODY);
    expect(() => verifyWebhookSignature(BODY, header, "", 300, AT_T)).toThrow(RangeError);
    expect(() => verifyWebhookSignature(BODY, header, [], 300, AT_T)).toThrow(RangeError);
    for (const tolerance of [0, -1, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(() => verifyWebhookSignature(BODY, header, SECRET, tolerance, AT_T)).toThrow(RangeError);
    }
  });

  it("stays installable without the service's own packages: the module imports only node:crypto", () => {
    const source = readFileSync(new URL("../src/webhooks.ts", import.meta.url), "utf8");
    const imports = [...source.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports).toEqual(["node:crypto"]);
  });
});
