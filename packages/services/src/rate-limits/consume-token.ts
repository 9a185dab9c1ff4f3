import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { drawFromBucket, nextWant, type RateLimitPolicy, retryAfterSeconds, type SharedBucket } from "@crs/core";
import type { Sql } from "postgres";

export type { RateLimitPolicy } from "@crs/core";

export interface RateLimitDecision {
  admitted: boolean;
  limit: number;
  remaining: number;
  /** whole seconds until one token is back (only meaningful when refused) */
  retryAfterSeconds: number;
}

export const SANDBOX_RATE_LIMIT: RateLimitPolicy = { perSecond: 25, burst: 50 };
export const OPERATOR_RATE_LIMIT: RateLimitPolicy = { perSecond: 100, burst: 200 };
export const SANDBOX_KEY_MINT_LIMIT: RateLimitPolicy = { perSecond: 10 / 60, burst: 10 };

/** How long the database keeps a lease before counting its tokens as spent. */
export const LEASE_TTL_MS = 5_000;
/** How long this process spends from a lease, counted from before it asked: well inside LEASE_TTL_MS. */
export const LEASE_LOCAL_MS = 1_000;
/** Buckets remembered per process before idle ones (no lease, no draw under way) are forgotten. */
const MAX_BUCKETS = 10_000;
/** Compare-and-set attempts on the bucket row before a draw gives up (a 500, never an admission). */
const MAX_ATTEMPTS = 50;

interface HeldLease {
  id: string;
  unused: number;
  spent: number;
  /** performance.now() after which nothing more is spent from it */
  deadline: number;
  /** the row's tokens when it was drawn, for Svc-RateLimit-Remaining */
  rowTokens: number;
}

interface LocalBucket {
  lease: HeldLease | null;
  /** what the holder asks for on its next draw */
  want: number;
  /** the policy of the last draw: a settle refills the row by it */
  policy: RateLimitPolicy;
  /** draws on this bucket run one after another */
  tail: Promise<unknown>;
  /** draws queued or under way */
  pending: number;
  timer: NodeJS.Timeout | null;
}

interface BucketRow {
  tokens: number | null;
  /** microseconds since the epoch, as text (exact: a timestamp's own precision) */
  updated_us: string | null;
  /** jsonb as text: the client under drizzle passes json through unparsed */
  leases: string | null;
  version: string | null;
  now_us: string;
}

/**
 * This process's side of the shared token buckets (the rules are core's `drawFromBucket`). A request
 * is admitted from a lease held in memory when one has tokens left and is inside its local deadline;
 * otherwise it waits its turn for one draw on the row (one at a time per bucket in this process), which
 * hands back the previous lease, takes the request's own token and perhaps a new lease.
 *
 * A draw reads the row with the database clock and writes it back only if its `version` has not
 * moved (compare-and-set), retrying otherwise: two round trips, no transaction, no row lock held
 * between them. A draw that changes nothing (a refusal) writes nothing.
 */
export class BucketLeases {
  readonly holder = randomUUID();
  private readonly buckets = new Map<string, LocalBucket>();
  private closed = false;

  constructor(
    private readonly sql: Sql,
    private readonly now: () => number = () => performance.now(),
  ) {}

  consume(bucket: string, policy: RateLimitPolicy): RateLimitDecision | Promise<RateLimitDecision> {
    const local = this.local(bucket, policy);
    local.policy = policy;
    const fromMemory = this.spendFromLease(local, policy);
    if (fromMemory) return fromMemory;
    return this.enqueue(
      local,
      () => this.spendFromLease(local, policy) ?? this.draw(bucket, local, policy, this.closed ? 1 : local.want),
    );
  }

  /** Hands every lease back (at shutdown); later requests draw one token at a time. */
  async release(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.buckets].map(([bucket, local]) => {
        if (local.timer) clearTimeout(local.timer);
        local.timer = null;
        return this.enqueue(local, () => (local.lease ? this.draw(bucket, local, local.policy, 0) : undefined)).catch(
          () => undefined,
        );
      }),
    );
  }

  /** Runs `step` after every draw queued before it on this bucket. */
  private enqueue<T>(local: LocalBucket, step: () => T | Promise<T>): Promise<T> {
    local.pending += 1;
    const turn = local.tail.then(step).finally(() => {
      local.pending -= 1;
    });
    local.tail = turn.catch(() => undefined);
    return turn;
  }

  private local(bucket: string, policy: RateLimitPolicy): LocalBucket {
    let local = this.buckets.get(bucket);
    if (!local) {
      if (this.buckets.size >= MAX_BUCKETS) this.forgetIdle();
      local = { lease: null, want: 1, policy, tail: Promise.resolve(), pending: 0, timer: null };
      this.buckets.set(bucket, local);
    }
    return local;
  }

  /**
   * Forgets buckets holding no lease with no draw under way. One still drawing is kept: two local
   * records of one bucket would draw as the same holder at once, and one could spend a lease the other
   * had already handed back.
   */
  private forgetIdle(): void {
    for (const [bucket, local] of this.buckets) {
      if (local.lease === null && local.pending === 0 && local.timer === null) this.buckets.delete(bucket);
    }
  }

  private spendFromLease(local: LocalBucket, policy: RateLimitPolicy): RateLimitDecision | null {
    const lease = local.lease;
    if (!lease || lease.unused < 1 || this.now() >= lease.deadline) return null;
    lease.unused -= 1;
    lease.spent += 1;
    return {
      admitted: true,
      limit: policy.burst,
      remaining: Math.min(policy.burst, Math.floor(lease.rowTokens) + lease.unused),
      retryAfterSeconds: 0,
    };
  }

  /** One draw asking for `want` tokens; 0 only settles the held lease (idle timer, shutdown). */
  private async draw(
    bucket: string,
    local: LocalBucket,
    policy: RateLimitPolicy,
    want: number,
  ): Promise<RateLimitDecision> {
    const previous = local.lease;
    // From here on nothing is spent from the previous lease: what is left of it is handed back.
    local.lease = null;
    if (local.timer) clearTimeout(local.timer);
    local.timer = null;
    const settle = previous ? { lease: previous.id, unused: previous.unused } : null;
    const leaseId = randomUUID();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const startedAt = this.now();
      const [row] = await this.sql<BucketRow[]>`
        select b.tokens, (extract(epoch from b.updated_at) * 1000000)::bigint::text as updated_us, b.leases::text as leases,
               b.version::text as version, (extract(epoch from n.now) * 1000000)::bigint::text as now_us
          from (select clock_timestamp() as now) n
          left join rate_limit_buckets b on b.bucket = ${bucket}`;
      if (!row) throw new Error("rate limit: the bucket read returned no row");
      const current: SharedBucket | null =
        row.version === null
          ? null
          : { tokens: Number(row.tokens), updatedAtMs: Number(row.updated_us) / 1000, leases: parseLeases(row.leases) };
      if (current === null && want === 0) break;
      const result = drawFromBucket(current, {
        policy,
        nowMs: Number(row.now_us) / 1000,
        holder: this.holder,
        want,
        settle,
        leaseId,
        leaseTtlMs: LEASE_TTL_MS,
      });
      if (result.changed && !(await this.write(bucket, row.version, result.bucket))) continue;
      if (want === 0) break;
      if (result.granted > 1) {
        local.lease = {
          id: leaseId,
          unused: result.granted - 1,
          spent: 1,
          deadline: startedAt + LEASE_LOCAL_MS,
          rowTokens: result.bucket.tokens,
        };
        this.scheduleReturn(bucket, local);
      }
      // Demand measured by the previous lease when there was one, else by this draw.
      local.want = nextWant(previous ? previous.spent : result.granted);
      const admitted = result.granted > 0;
      return {
        admitted,
        limit: policy.burst,
        remaining: Math.min(policy.burst, Math.floor(result.bucket.tokens) + Math.max(0, result.granted - 1)),
        retryAfterSeconds: admitted ? 0 : retryAfterSeconds(result.bucket.tokens, policy),
      };
    }
    if (want === 0) return settled(policy);
    throw new Error(`rate limit: bucket ${bucket} changed under ${MAX_ATTEMPTS} draws in a row`);
  }

  /** Compare-and-set on `version` (null: the row is new). False when another draw got there first. */
  private async write(bucket: string, version: string | null, next: SharedBucket): Promise<boolean> {
    const sql = this.sql;
    // Written back to the microsecond it was read at, so no refill is ever counted twice.
    const updatedAt = sql`timestamptz 'epoch' + ${String(Math.round(next.updatedAtMs * 1000))}::bigint * interval '1 microsecond'`;
    const leases = JSON.stringify(next.leases);
    if (version === null) {
      const inserted = await this.sql`
        insert into rate_limit_buckets (bucket, tokens, updated_at, leases, version)
        values (${bucket}, ${next.tokens}, ${updatedAt}, ${leases}::jsonb, 0)
        on conflict (bucket) do nothing`;
      return inserted.count === 1;
    }
    const updated = await this.sql`
      update rate_limit_buckets
         set tokens = ${next.tokens}, updated_at = ${updatedAt}, leases = ${leases}::jsonb,
             version = version + 1
       where bucket = ${bucket} and version = ${version}::bigint`;
    return updated.count === 1;
  }

  /** Hands an unspent lease back when its local deadline passes, so no other process waits for its expiry. */
  private scheduleReturn(bucket: string, local: LocalBucket): void {
    const lease = local.lease;
    if (!lease) return;
    local.timer = setTimeout(
      () => {
        local.timer = null;
        if (local.lease !== lease || this.closed) return;
        void this.enqueue(local, () =>
          local.lease === lease ? this.draw(bucket, local, local.policy, 0) : undefined,
        ).catch(() => undefined);
      },
      Math.max(0, lease.deadline - this.now()),
    );
    local.timer.unref();
  }
}

function parseLeases(text: string | null): SharedBucket["leases"] {
  return text ? (JSON.parse(text) as SharedBucket["leases"]) : {};
}

/** The answer of a draw that only settled a lease (nobody reads it). */
function settled(policy: RateLimitPolicy): RateLimitDecision {
  return { admitted: false, limit: policy.burst, remaining: 0, retryAfterSeconds: 0 };
}

const leasesBySql = new WeakMap<Sql, BucketLeases>();

/** One set of leases per database client (each process builds its deps once). */
export function bucketLeasesFor(sql: Sql): BucketLeases {
  let leases = leasesBySql.get(sql);
  if (!leases) {
    leases = new BucketLeases(sql);
    leasesBySql.set(sql, leases);
  }
  return leases;
}

/**
 * Takes one token from a bucket shared by every process on the database: from this process's lease
 * when it holds one, else by one draw on the bucket row (see BucketLeases and core's drawFromBucket).
 */
export function consumeToken(
  sql: Sql,
  bucket: string,
  policy: RateLimitPolicy,
): RateLimitDecision | Promise<RateLimitDecision> {
  return bucketLeasesFor(sql).consume(bucket, policy);
}

/** Hands back this process's unspent leases; called when the process closes its database client. */
export async function releaseBucketLeases(sql: Sql): Promise<void> {
  await leasesBySql.get(sql)?.release();
}
