import type { Sql } from "postgres";

export interface RateLimitPolicy {
  perSecond: number;
  burst: number;
}

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

/**
 * Takes one token from a bucket in a single statement. The bucket row is refilled from the
 * database clock and updated under its row lock, so every REST process on the database draws
 * from the same bucket and concurrent requests cannot both take the last token.
 * now() is the statement's start: one that waited on the row lock can start before the row's
 * updated_at, so the elapsed time is clamped at zero and updated_at never moves back.
 * It runs on every request, so it is raw postgres.js (a named prepared statement), not a
 * query built anew each time.
 */
export async function consumeToken(sql: Sql, bucket: string, policy: RateLimitPolicy): Promise<RateLimitDecision> {
  const refilled = sql`least(${policy.burst}::float8,
    b.tokens + greatest(0, extract(epoch from (now() - b.updated_at))) * ${policy.perSecond}::float8)`;
  const [row] = await sql<{ tokens: number; admitted: boolean }[]>`
    insert into rate_limit_buckets as b (bucket, tokens, admitted, updated_at)
    values (${bucket}, ${policy.burst}::float8 - 1, true, now())
    on conflict (bucket) do update set
      tokens = case when ${refilled} >= 1 then ${refilled} - 1 else ${refilled} end,
      admitted = ${refilled} >= 1,
      updated_at = greatest(b.updated_at, now())
    returning tokens, admitted`;
  const tokens = Number(row?.tokens ?? 0);
  const admitted = row?.admitted ?? false;
  return {
    admitted,
    limit: policy.burst,
    remaining: Math.max(0, Math.floor(tokens)),
    retryAfterSeconds: admitted ? 0 : Math.max(1, Math.ceil((1 - tokens) / policy.perSecond)),
  };
}
