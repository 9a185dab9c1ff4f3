/**
 * Token buckets shared by every process, drawn on in leases.
 *
 * The bucket row in the database holds `tokens` (refilled at `perSecond`, measured on the database
 * clock) and the leases processes hold: tokens taken from the row but not yet spent. A process that
 * draws takes `granted` tokens at once: the first is spent by the request that drew, the rest are its
 * lease, spent by its next requests from memory. The bucket a client sees is the row's tokens plus
 * every unspent leased token, and that sum never exceeds the burst: the row refills only up to
 * `burst - leased`, so a lease held in memory is still counted as in the bucket, never twice.
 *
 * A lease ends in one of two ways. Its holder hands it back (the next draw, an idle timer, a clean
 * shutdown) with the count it did not spend, and those tokens return to the row. Or its expiry passes
 * (the holder crashed or stalled): its tokens are then taken as spent, and it stops holding back the
 * refill. The holder itself stops spending a lease well before that expiry (its own deadline is
 * shorter and measured from before it asked), so a token is never both spent from memory and counted
 * back into the bucket. Admissions over any interval are therefore at most what one bucket of
 * `burst`, refilled at `perSecond`, allows, summed over all processes.
 *
 * Lease sizes adapt: never more than an eighth of what the row holds (so a bucket running low leases
 * one token at a time, which is spent at once, and a low limit is never held back by another process's
 * lease), never more than a sixteenth of the burst (at most MAX_LEASE), and no more than the holder asks
 * for (it asks for about twice what it spent from its previous lease).
 */

export interface RateLimitPolicy {
  perSecond: number;
  burst: number;
}

export interface BucketLease {
  /** the lease's id, handed back when it is settled */
  lease: string;
  /** tokens taken from the row and not yet accounted for */
  tokens: number;
  /** database clock, milliseconds since the epoch */
  expiresAtMs: number;
}

/** The shared row: tokens in it, when they were last refilled, and the leases by holder (one each). */
export interface SharedBucket {
  tokens: number;
  updatedAtMs: number;
  leases: Record<string, BucketLease>;
}

export interface DrawRequest {
  policy: RateLimitPolicy;
  /** the database clock, milliseconds since the epoch */
  nowMs: number;
  /** the process drawing (one lease per holder per bucket) */
  holder: string;
  /** tokens the holder asks for, its own request's token included; 0 only settles */
  want: number;
  /** the holder's previous lease, handed back with the tokens it did not spend */
  settle: { lease: string; unused: number } | null;
  /** the id of the lease this draw may create */
  leaseId: string;
  leaseTtlMs: number;
}

export interface DrawResult {
  bucket: SharedBucket;
  /** tokens taken: the first is the drawing request's, the rest are leased (0: refused, or a settle) */
  granted: number;
  /** tokens handed back to the row from the settled lease */
  returned: number;
  /** false when the row need not be written (nothing taken, returned or expired) */
  changed: boolean;
}

/** Most tokens one lease holds. */
export const MAX_LEASE = 256;
/** A lease takes at most this fraction (1/n) of the tokens in the row. */
const ROW_SHARE_DIVISOR = 8;
/** ... and at most this fraction (1/n) of the burst. */
const BURST_SHARE_DIVISOR = 16;

export function leasedTokens(bucket: SharedBucket): number {
  let sum = 0;
  for (const lease of Object.values(bucket.leases)) sum += lease.tokens;
  return sum;
}

/** The most one draw may take when `available` whole tokens are in the row and the holder asks for `want`. */
export function leaseSize(available: number, policy: RateLimitPolicy, want: number): number {
  const whole = Math.floor(available);
  if (whole < 1 || want < 1) return 0;
  const burstCap = Math.min(MAX_LEASE, Math.max(1, Math.floor(policy.burst / BURST_SHARE_DIVISOR)));
  const rowCap = Math.max(1, Math.floor(whole / ROW_SHARE_DIVISOR));
  return Math.min(Math.floor(want), burstCap, rowCap, whole);
}

/** What a holder asks for next: about twice what it spent from its previous lease, within 1..MAX_LEASE. */
export function nextWant(spentFromPrevious: number): number {
  return Math.min(MAX_LEASE, Math.max(1, 2 * Math.floor(spentFromPrevious)));
}

/**
 * One draw on the shared bucket: refill (up to the burst less what is leased, leases past their
 * expiry still counting until this moment), settle the holder's previous lease, drop expired leases
 * (their tokens count as spent), then take up to `leaseSize` tokens. `current` null: the bucket is new
 * and full.
 */
export function drawFromBucket(current: SharedBucket | null, request: DrawRequest): DrawResult {
  const { policy, nowMs, holder } = request;
  const base: SharedBucket = current ?? { tokens: policy.burst, updatedAtMs: nowMs, leases: {} };
  const elapsedSeconds = Math.max(0, nowMs - base.updatedAtMs) / 1000;
  const refillCap = Math.max(0, policy.burst - leasedTokens(base));
  let tokens = Math.min(refillCap, base.tokens + elapsedSeconds * policy.perSecond);
  // A lowered burst can leave more in the row than the new cap; never more than it.
  tokens = Math.max(0, tokens);

  let changed = current === null;
  let returned = 0;
  const leases: Record<string, BucketLease> = {};
  for (const [owner, lease] of Object.entries(base.leases)) {
    if (owner === holder) {
      changed = true;
      // Handed back before it expired: what was not spent goes back. Otherwise (expired, or a lease
      // this holder no longer knows of) all of it counts as spent.
      if (request.settle && request.settle.lease === lease.lease && lease.expiresAtMs > nowMs) {
        returned = Math.min(lease.tokens, Math.max(0, Math.floor(request.settle.unused)));
      }
      continue;
    }
    if (lease.expiresAtMs <= nowMs) {
      changed = true;
      continue;
    }
    leases[owner] = lease;
  }
  tokens += returned;

  const granted = leaseSize(tokens, policy, request.want);
  if (granted > 0) {
    changed = true;
    tokens -= granted;
    if (granted > 1) {
      leases[holder] = { lease: request.leaseId, tokens: granted - 1, expiresAtMs: nowMs + request.leaseTtlMs };
    }
  }
  return {
    bucket: { tokens, updatedAtMs: Math.max(base.updatedAtMs, nowMs), leases },
    granted,
    returned,
    changed,
  };
}

/** Whole seconds until the row holds one token again (for Retry-After), at least 1. */
export function retryAfterSeconds(tokens: number, policy: RateLimitPolicy): number {
  return Math.max(1, Math.ceil((1 - tokens) / policy.perSecond));
}
