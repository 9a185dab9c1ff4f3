import { describe, expect, it } from "vitest";
import {
  type DrawRequest,
  drawFromBucket,
  leasedTokens,
  leaseSize,
  MAX_LEASE,
  nextWant,
  type RateLimitPolicy,
  retryAfterSeconds,
  type SharedBucket,
} from "../src/rate-limits";

const T0 = 1_800_000_000_000;
const TTL = 5_000;

function request(policy: RateLimitPolicy, overrides: Partial<DrawRequest> = {}): DrawRequest {
  return {
    policy,
    nowMs: T0,
    holder: "a",
    want: 1,
    settle: null,
    leaseId: "lease-1",
    leaseTtlMs: TTL,
    ...overrides,
  };
}

describe("leaseSize", () => {
  const big = { perSecond: 1000, burst: 10_000 };
  it("is 0 when the row holds less than one whole token, or nothing is asked for", () => {
    expect(leaseSize(0.99, big, 10)).toBe(0);
    expect(leaseSize(500, big, 0)).toBe(0);
  });
  it("leases one token at a time when the row holds fewer than 16", () => {
    for (const available of [1, 2, 7, 8, 15]) expect(leaseSize(available, big, 100)).toBe(1);
    expect(leaseSize(16, big, 100)).toBe(2);
  });
  it("takes at most an eighth of the row, a sixteenth of the burst, MAX_LEASE, and what is asked", () => {
    expect(leaseSize(800, big, 1000)).toBe(100);
    expect(leaseSize(800, { perSecond: 1, burst: 320 }, 1000)).toBe(20);
    expect(leaseSize(1e9, { perSecond: 1, burst: 1e9 }, 1e6)).toBe(MAX_LEASE);
    expect(leaseSize(800, big, 3)).toBe(3);
  });
  it("never leases more than one token for a burst of 31 or less", () => {
    for (let burst = 1; burst < 32; burst++) {
      for (let available = 0; available <= burst; available++) {
        expect(leaseSize(available, { perSecond: 1, burst }, 1000)).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe("nextWant", () => {
  it("asks for twice what the previous lease spent, within 1..MAX_LEASE", () => {
    expect(nextWant(0)).toBe(1);
    expect(nextWant(1)).toBe(2);
    expect(nextWant(7)).toBe(14);
    expect(nextWant(10_000)).toBe(MAX_LEASE);
  });
});

describe("drawFromBucket", () => {
  const policy = { perSecond: 10, burst: 100 };

  it("creates a full bucket on the first draw and takes the drawing request's token", () => {
    const result = drawFromBucket(null, request(policy));
    expect(result.granted).toBe(1);
    expect(result.changed).toBe(true);
    expect(result.bucket).toEqual({ tokens: 99, updatedAtMs: T0, leases: {} });
  });

  it("records a lease of all but the first token, expiring after the TTL", () => {
    const result = drawFromBucket(null, request(policy, { want: 6 }));
    expect(result.granted).toBe(6);
    expect(result.bucket.tokens).toBe(94);
    expect(result.bucket.leases).toEqual({ a: { lease: "lease-1", tokens: 5, expiresAtMs: T0 + TTL } });
  });

  it("refuses with nothing to write when the row holds less than a token", () => {
    const empty: SharedBucket = { tokens: 0.5, updatedAtMs: T0, leases: {} };
    const result = drawFromBucket(empty, request(policy, { nowMs: T0 + 40 }));
    expect(result.granted).toBe(0);
    expect(result.changed).toBe(false);
    expect(result.bucket.tokens).toBeCloseTo(0.9);
    expect(retryAfterSeconds(result.bucket.tokens, policy)).toBe(1);
  });

  it("refills at perSecond up to the burst less what is leased", () => {
    const bucket: SharedBucket = {
      tokens: 50,
      updatedAtMs: T0,
      leases: { b: { lease: "x", tokens: 30, expiresAtMs: T0 + 60_000 } },
    };
    const later = drawFromBucket(bucket, request(policy, { nowMs: T0 + 1_000, want: 0 }));
    expect(later.bucket.tokens).toBe(60);
    const muchLater = drawFromBucket(bucket, request(policy, { nowMs: T0 + 50_000, want: 0 }));
    expect(muchLater.bucket.tokens).toBe(70);
    expect(muchLater.bucket.tokens + leasedTokens(muchLater.bucket)).toBe(policy.burst);
  });

  it("never refills when the database clock reads earlier than the row", () => {
    const bucket: SharedBucket = { tokens: 10, updatedAtMs: T0, leases: {} };
    const result = drawFromBucket(bucket, request(policy, { nowMs: T0 - 5_000 }));
    expect(result.bucket.tokens).toBe(9);
    expect(result.bucket.updatedAtMs).toBe(T0);
  });

  it("returns the unspent part of the holder's lease when it is handed back in time", () => {
    const bucket: SharedBucket = {
      tokens: 20,
      updatedAtMs: T0,
      leases: { a: { lease: "lease-0", tokens: 8, expiresAtMs: T0 + TTL } },
    };
    const result = drawFromBucket(
      bucket,
      request({ perSecond: 0, burst: 100 }, { want: 0, settle: { lease: "lease-0", unused: 3 }, nowMs: T0 + 100 }),
    );
    expect(result.returned).toBe(3);
    expect(result.bucket.tokens).toBe(23);
    expect(result.bucket.leases).toEqual({});
  });

  it("never returns more than the lease held, nor anything for another lease id or an expired lease", () => {
    const bucket: SharedBucket = {
      tokens: 20,
      updatedAtMs: T0,
      leases: { a: { lease: "lease-0", tokens: 8, expiresAtMs: T0 + TTL } },
    };
    const zero = { perSecond: 0, burst: 100 };
    const tooMany = drawFromBucket(bucket, request(zero, { want: 0, settle: { lease: "lease-0", unused: 50 } }));
    expect(tooMany.bucket.tokens).toBe(28);
    const otherId = drawFromBucket(bucket, request(zero, { want: 0, settle: { lease: "other", unused: 8 } }));
    expect(otherId.bucket.tokens).toBe(20);
    expect(otherId.bucket.leases).toEqual({});
    const late = drawFromBucket(
      bucket,
      request(zero, { want: 0, settle: { lease: "lease-0", unused: 8 }, nowMs: T0 + TTL }),
    );
    expect(late.returned).toBe(0);
    expect(late.bucket.tokens).toBe(20);
  });

  it("drops another holder's expired lease as spent, and it then stops holding back the refill", () => {
    const bucket: SharedBucket = {
      tokens: 60,
      updatedAtMs: T0,
      leases: { b: { lease: "x", tokens: 40, expiresAtMs: T0 + TTL } },
    };
    const atExpiry = drawFromBucket(bucket, request(policy, { nowMs: T0 + TTL, want: 0 }));
    expect(atExpiry.changed).toBe(true);
    expect(atExpiry.bucket.leases).toEqual({});
    // Until the expiry the cap was 100 - 40: the row stayed at 60 and the 40 are gone.
    expect(atExpiry.bucket.tokens).toBe(60);
    const after = drawFromBucket(atExpiry.bucket, request(policy, { nowMs: T0 + TTL + 2_000, want: 0 }));
    expect(after.bucket.tokens).toBe(80);
  });

  it("keeps the bucket exact over many holders drawing, spending part and settling", () => {
    // A deterministic simulation: whatever the interleaving, what is admitted over the run never exceeds
    // burst + perSecond x elapsed, and tokens + leased never exceeds the burst.
    const rule = { perSecond: 20, burst: 400 };
    let bucket: SharedBucket | null = null;
    const held = new Map<string, { lease: string; unused: number; until: number }>();
    let admitted = 0;
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let now = T0;
    for (let step = 0; step < 5_000; step++) {
      now += Math.floor(random() * 20);
      const holder = `h${Math.floor(random() * 4)}`;
      const mine = held.get(holder);
      // A holder spends from its lease only before its own deadline (1 s, inside the 5 s expiry).
      if (mine && mine.unused > 0 && now < mine.until && random() < 0.7) {
        mine.unused -= 1;
        admitted += 1;
        continue;
      }
      const result = drawFromBucket(bucket, {
        policy: rule,
        nowMs: now,
        holder,
        want: Math.floor(random() * 40),
        settle: mine ? { lease: mine.lease, unused: mine.unused } : null,
        leaseId: `l${step}`,
        leaseTtlMs: TTL,
      });
      bucket = result.bucket;
      held.delete(holder);
      if (result.granted > 0) admitted += 1;
      if (result.granted > 1) held.set(holder, { lease: `l${step}`, unused: result.granted - 1, until: now + 1_000 });
      expect(bucket.tokens).toBeGreaterThanOrEqual(0);
      expect(bucket.tokens + leasedTokens(bucket)).toBeLessThanOrEqual(rule.burst + 1e-9);
    }
    expect(admitted).toBeLessThanOrEqual(rule.burst + (rule.perSecond * (now - T0)) / 1000);
    // and the limit was actually reached: leases do not starve the bucket
    expect(admitted).toBeGreaterThan(0.9 * (rule.burst + (rule.perSecond * (now - T0)) / 1000) - 4 * MAX_LEASE);
  });
});
