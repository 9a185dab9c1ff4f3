import { createDecipheriv, createHmac } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decryptWebhookSecret,
  encryptWebhookSecret,
  formatWebhookSecret,
  matchesEnabledEvents,
  nextRetryAt,
  normalizeEnabledEvents,
  signWebhookPayload,
  WEBHOOK_RETRY_SCHEDULE,
  type WebhookRetrySchedule,
  WebhookSecretBoxError,
} from "../src/webhooks";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const PREVIOUS_SECRET = "whsec_previous_secret_still_valid_for_a_day";
const TIMESTAMP = 1_767_225_600; // 2026-01-01T00:00:00Z
const BODY = '{"id":"evt_01h00000000000000000000000","type":"judgment.created","amount":"€12.50"}';
// Computed once outside Node, with OpenSSL:
//   printf '%s' "1767225600.$BODY" | openssl dgst -sha256 -hmac "$SECRET"
const OPENSSL_V1 = "bdb6753a1918d13607ed487da72bbb805a1c96e16eeb086d33abef534e7bd387";
const OPENSSL_V1_PREVIOUS = "9bf3fbfa5fb49ce28736ddb012c12034e6b811b58cbb326c1191ee83485a6328";

describe("signWebhookPayload", () => {
  it("produces t=<seconds>,v1=<hex HMAC-SHA256 of '<t>.<body>'> keyed by the whole whsec_ secret", () => {
    expect(signWebhookPayload(SECRET, TIMESTAMP, BODY)).toBe(`t=${TIMESTAMP},v1=${OPENSSL_V1}`);
  });

  it("agrees with an HMAC computed directly over the same bytes, for any body and time", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 0, max: 4_102_444_800 }), (body, t) => {
        const expected = createHmac("sha256", SECRET).update(`${t}.${body}`, "utf8").digest("hex");
        expect(signWebhookPayload(SECRET, t, body)).toBe(`t=${t},v1=${expected}`);
      }),
    );
  });

  it("signs a byte body exactly as the same body sent as a UTF-8 string", () => {
    expect(signWebhookPayload(SECRET, TIMESTAMP, Buffer.from(BODY, "utf8"))).toBe(`t=${TIMESTAMP},v1=${OPENSSL_V1}`);
  });

  it("adds one v1 entry per secret while a secret is being rotated", () => {
    expect(signWebhookPayload([SECRET, PREVIOUS_SECRET], TIMESTAMP, BODY)).toBe(
      `t=${TIMESTAMP},v1=${OPENSSL_V1},v1=${OPENSSL_V1_PREVIOUS}`,
    );
  });

  it("changes when any signed input changes", () => {
    const v1 = (header: string) => header.split(",v1=")[1];
    const base = v1(signWebhookPayload(SECRET, TIMESTAMP, BODY));
    expect(v1(signWebhookPayload(SECRET, TIMESTAMP + 1, BODY))).not.toBe(base);
    expect(v1(signWebhookPayload(SECRET, TIMESTAMP, `${BODY} `))).not.toBe(base);
    expect(v1(signWebhookPayload(`${SECRET}x`, TIMESTAMP, BODY))).not.toBe(base);
  });

  it("refuses an empty secret and a timestamp that is not whole unix seconds", () => {
    expect(() => signWebhookPayload("", TIMESTAMP, BODY)).toThrow(RangeError);
    expect(() => signWebhookPayload([], TIMESTAMP, BODY)).toThrow(RangeError);
    expect(() => signWebhookPayload(SECRET, 1_767_225_600_000.5, BODY)).toThrow(RangeError);
    expect(() => signWebhookPayload(SECRET, -1, BODY)).toThrow(RangeError);
  });
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const FIRST_ATTEMPT = new Date("2026-03-01T10:00:00.000Z");

/** Runs a delivery that never succeeds, each attempt taking `attemptMs`; returns attempt start offsets in ms. */
function simulateFailingDelivery(
  jitterFor: (attempt: number) => number,
  schedule: WebhookRetrySchedule = WEBHOOK_RETRY_SCHEDULE,
  attemptMs = 0,
): number[] {
  const starts = [0];
  for (let attempt = 1; attempt < 10_000; attempt++) {
    const startedAt = FIRST_ATTEMPT.getTime() + starts[starts.length - 1]!;
    const next = nextRetryAt(
      {
        firstAttemptAt: FIRST_ATTEMPT,
        attemptsSoFar: attempt,
        now: new Date(startedAt + attemptMs),
        jitter: jitterFor(attempt),
      },
      schedule,
    );
    if (next === null) return starts;
    starts.push(next.getTime() - FIRST_ATTEMPT.getTime());
  }
  throw new Error("the delivery never died");
}

describe("nextRetryAt", () => {
  it("without jitter retries after 1, 2, 4 ... minutes, then every 6 hours, ending exactly 72 hours after the first attempt", () => {
    const doubling = [0, 1, 3, 7, 15, 31, 63, 127, 255, 511]; // each gap doubles, from 1 minute to 256 minutes
    const capped = Array.from({ length: 10 }, (_, k) => 511 + 360 * (k + 1)); // 512 min would pass the 6 h cap
    const expectedMinutes = [...doubling, ...capped, 72 * 60];
    expect(simulateFailingDelivery(() => 0).map((ms) => ms / MINUTE)).toEqual(expectedMinutes);
  });

  it("never schedules an attempt more than 72 hours after the first, and the delivery always ends dead", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 40, maxLength: 40 }),
        fc.integer({ min: 0, max: 10_000 }),
        (jitters, attemptMs) => {
          const starts = simulateFailingDelivery(
            (n) => jitters[n % jitters.length]!,
            WEBHOOK_RETRY_SCHEDULE,
            attemptMs,
          );
          expect(Math.max(...starts)).toBeLessThanOrEqual(72 * HOUR);
          for (let i = 1; i < starts.length; i++)
            expect(starts[i]! - starts[i - 1]!).toBeLessThanOrEqual(6 * HOUR + attemptMs);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("returns null (dead) once 72 hours have passed since the first attempt", () => {
    const at = (ms: number) => ({
      firstAttemptAt: FIRST_ATTEMPT,
      attemptsSoFar: 21,
      jitter: 0.5,
      now: new Date(FIRST_ATTEMPT.getTime() + ms),
    });
    expect(nextRetryAt(at(72 * HOUR))).toBeNull();
    expect(nextRetryAt(at(80 * HOUR))).toBeNull();
    expect(nextRetryAt(at(72 * HOUR - 1))).toEqual(new Date(FIRST_ATTEMPT.getTime() + 72 * HOUR));
  });

  it("keeps a jittered delay between three quarters of the nominal delay and the nominal delay", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attemptsSoFar, jitter) => {
          const now = new Date(FIRST_ATTEMPT.getTime() + MINUTE);
          const next = nextRetryAt({ firstAttemptAt: FIRST_ATTEMPT, attemptsSoFar, now, jitter })!;
          const delay = next.getTime() - now.getTime();
          const nominal = Math.min(6 * HOUR, MINUTE * 2 ** (attemptsSoFar - 1));
          expect(delay).toBeGreaterThanOrEqual(Math.floor(0.75 * nominal));
          expect(delay).toBeLessThanOrEqual(nominal);
        },
      ),
    );
  });

  it("spreads retries of deliveries that failed together", () => {
    const now = new Date(FIRST_ATTEMPT.getTime() + 15 * MINUTE);
    const times = [0, 0.3, 0.6, 0.9].map((jitter) =>
      nextRetryAt({ firstAttemptAt: FIRST_ATTEMPT, attemptsSoFar: 5, now, jitter })!.getTime(),
    );
    expect(new Set(times).size).toBe(4);
  });

  it("follows a shrunk schedule given as a parameter", () => {
    const tiny: WebhookRetrySchedule = { baseDelayMs: 10, factor: 3, maxDelayMs: 100, windowMs: 500, jitterRatio: 0 };
    // Gaps 10, 30, 90, then the 100 ms cap; the last retry is pulled back to the 500 ms window end.
    expect(simulateFailingDelivery(() => 0, tiny)).toEqual([0, 10, 40, 130, 230, 330, 430, 500]);
  });

  it("refuses jitter outside [0, 1), a count below 1 and an invalid date", () => {
    const base = { firstAttemptAt: FIRST_ATTEMPT, attemptsSoFar: 1, now: FIRST_ATTEMPT, jitter: 0 };
    for (const jitter of [1, -0.01, Number.NaN]) expect(() => nextRetryAt({ ...base, jitter })).toThrow(RangeError);
    expect(() => nextRetryAt({ ...base, attemptsSoFar: 0 })).toThrow(RangeError);
    expect(() => nextRetryAt({ ...base, now: new Date(Number.NaN) })).toThrow(RangeError);
  });

  it("still schedules a retry when the failing worker's clock is a little behind the first attempt's", () => {
    const now = new Date(FIRST_ATTEMPT.getTime() - 2_000);
    expect(nextRetryAt({ firstAttemptAt: FIRST_ATTEMPT, attemptsSoFar: 1, now, jitter: 0 })).toEqual(
      new Date(FIRST_ATTEMPT.getTime() + MINUTE),
    );
  });
});

const CATALOG = ["matter.created", "matter.closed", "judgment.created", "judgment.validated"] as const;
const LEGACY = "2026-06-11";
const CURRENT = "2026-07-05";

describe("matchesEnabledEvents", () => {
  it("delivers everything to an endpoint without a filter or with '*'", () => {
    for (const filter of [undefined, null, ["*"], ["matter.created", "*"]]) {
      expect(matchesEnabledEvents(filter, "judgment.validated", CURRENT)).toBe(true);
    }
  });

  it("delivers only the listed types otherwise", () => {
    expect(matchesEnabledEvents(["matter.created"], "matter.created", CURRENT)).toBe(true);
    expect(matchesEnabledEvents(["matter.created"], "matter.closed", CURRENT)).toBe(false);
    expect(matchesEnabledEvents([], "matter.created", CURRENT)).toBe(false);
  });

  it("treats judgment.intaken as judgment.created for 2026-06-11 endpoints only", () => {
    expect(matchesEnabledEvents(["judgment.intaken"], "judgment.created", LEGACY)).toBe(true);
    expect(matchesEnabledEvents(["judgment.intaken"], "judgment.created", CURRENT)).toBe(false);
    expect(matchesEnabledEvents(["judgment.intaken"], "judgment.validated", LEGACY)).toBe(false);
  });

  it("does not mistake object property names for aliases", () => {
    expect(matchesEnabledEvents(["constructor", "__proto__", "toString"], "judgment.created", LEGACY)).toBe(false);
  });
});

describe("normalizeEnabledEvents", () => {
  it("reads an omitted filter as all events", () => {
    expect(normalizeEnabledEvents(undefined, CURRENT, CATALOG)).toEqual({ ok: true, enabledEvents: ["*"] });
  });

  it("collapses a list holding '*' to ['*']", () => {
    expect(normalizeEnabledEvents(["matter.created", "*"], CURRENT, CATALOG)).toEqual({
      ok: true,
      enabledEvents: ["*"],
    });
  });

  it("refuses an empty list", () => {
    expect(normalizeEnabledEvents([], CURRENT, CATALOG)).toEqual({ ok: false, reason: "empty" });
  });

  it("returns every unknown name, once each, in the order given, even next to '*'", () => {
    expect(
      normalizeEnabledEvents(["matter.deleted", "matter.created", "x", "matter.deleted", "*"], CURRENT, CATALOG),
    ).toEqual({
      ok: false,
      reason: "unknown_events",
      unknown: ["matter.deleted", "x"],
    });
  });

  it("stores judgment.intaken as judgment.created under 2026-06-11 and refuses it under later versions", () => {
    expect(normalizeEnabledEvents(["judgment.intaken", "judgment.created"], LEGACY, CATALOG)).toEqual({
      ok: true,
      enabledEvents: ["judgment.created"],
    });
    expect(normalizeEnabledEvents(["judgment.intaken"], CURRENT, CATALOG)).toEqual({
      ok: false,
      reason: "unknown_events",
      unknown: ["judgment.intaken"],
    });
  });

  it("keeps a normalized filter matching the same events as the input it came from", () => {
    fc.assert(
      fc.property(
        fc.subarray([...CATALOG, "judgment.intaken"], { minLength: 1 }),
        fc.constantFrom(...CATALOG),
        (input, eventType) => {
          const normalized = normalizeEnabledEvents(input, LEGACY, CATALOG);
          if (!normalized.ok) throw new Error("a subset of the catalog and its aliases is valid");
          expect(matchesEnabledEvents(normalized.enabledEvents, eventType, CURRENT)).toBe(
            matchesEnabledEvents(input, eventType, LEGACY),
          );
        },
      ),
    );
  });
});

const KEY = Buffer.from("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "hex");
const OTHER_KEY = Buffer.alloc(32, 7);
const IV = Buffer.from("a0a1a2a3a4a5a6a7a8a9aaab", "hex");

describe("webhook secrets", () => {
  it("formats 32 random bytes as whsec_ and 43 base64url characters", () => {
    const bytes = Buffer.alloc(32, 0xfb);
    const secret = formatWebhookSecret(bytes);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64url")).toEqual(bytes);
  });

  it("refuses fewer than 32 random bytes", () => {
    expect(() => formatWebhookSecret(Buffer.alloc(31))).toThrow(RangeError);
  });

  it("stores a secret as v1.<iv>.<tag>.<ciphertext>, which plain AES-256-GCM opens", () => {
    const box = encryptWebhookSecret(SECRET, KEY, IV);
    const [version, iv, tag, ciphertext] = box.split(".");
    expect(version).toBe("v1");
    expect(Buffer.from(iv!, "base64url")).toEqual(IV);
    const decipher = createDecipheriv("aes-256-gcm", KEY, Buffer.from(iv!, "base64url"));
    decipher.setAuthTag(Buffer.from(tag!, "base64url"));
    const plain = Buffer.concat([decipher.update(Buffer.from(ciphertext!, "base64url")), decipher.final()]);
    expect(plain.toString("utf8")).toBe(SECRET);
    expect(box).not.toContain(SECRET.slice("whsec_".length, 20));
  });

  it("round-trips any secret", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.uint8Array({ minLength: 12, maxLength: 12 }), (secret, iv) => {
        expect(decryptWebhookSecret(encryptWebhookSecret(secret, KEY, iv), KEY)).toBe(secret);
      }),
    );
  });

  it("detects a change to any single bit of the iv, tag or ciphertext", () => {
    const box = encryptWebhookSecret(SECRET, KEY, IV);
    const [version, ...parts] = box.split(".");
    for (let part = 0; part < 3; part++) {
      const bytes = Buffer.from(parts[part]!, "base64url");
      for (let bit = 0; bit < bytes.length * 8; bit += 5) {
        const flipped = Buffer.from(bytes);
        flipped[bit >> 3]! ^= 1 << (bit & 7);
        const altered = [...parts];
        altered[part] = flipped.toString("base64url");
        expect(() => decryptWebhookSecret([version, ...altered].join("."), KEY)).toThrow(
          expect.objectContaining({ reason: "authentication_failed" }),
        );
      }
    }
  });

  it("does not open with another key or another bound context", () => {
    const box = encryptWebhookSecret(SECRET, KEY, IV, { associatedData: "we_1" });
    expect(decryptWebhookSecret(box, KEY, { associatedData: "we_1" })).toBe(SECRET);
    for (const attempt of [
      () => decryptWebhookSecret(box, OTHER_KEY, { associatedData: "we_1" }),
      () => decryptWebhookSecret(box, KEY, { associatedData: "we_2" }),
      () => decryptWebhookSecret(box, KEY),
    ]) {
      expect(attempt).toThrow(WebhookSecretBoxError);
      expect(attempt).toThrow(expect.objectContaining({ reason: "authentication_failed" }));
    }
  });

  it("names a malformed box and an unknown version as such", () => {
    const box = encryptWebhookSecret(SECRET, KEY, IV);
    expect(() => decryptWebhookSecret(box.replace(/^v1\./, "v2."), KEY)).toThrow(
      expect.objectContaining({ reason: "unsupported_version" }),
    );
    for (const malformed of [
      "",
      "v1",
      box.split(".").slice(0, 3).join("."),
      `${box}.x`,
      box.replace(/\.[^.]+\./, ".a+b."),
    ]) {
      expect(() => decryptWebhookSecret(malformed, KEY)).toThrow(expect.objectContaining({ reason: "malformed" }));
    }
  });

  it("gives a different box for the same secret under a different iv", () => {
    const otherIv = Buffer.from(IV);
    otherIv[0]! ^= 1;
    expect(encryptWebhookSecret(SECRET, KEY, otherIv)).not.toBe(encryptWebhookSecret(SECRET, KEY, IV));
  });

  it("refuses a key that is not 32 bytes and an iv that is not 12", () => {
    expect(() => encryptWebhookSecret(SECRET, Buffer.alloc(16), IV)).toThrow(RangeError);
    expect(() => encryptWebhookSecret(SECRET, KEY, Buffer.alloc(16))).toThrow(RangeError);
    expect(() => decryptWebhookSecret(encryptWebhookSecret(SECRET, KEY, IV), Buffer.alloc(31))).toThrow(RangeError);
  });
});
