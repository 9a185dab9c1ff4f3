import type { ChainEvent, Environment, WebhookDeliveryStatus } from "@crs/core";
import { sql } from "drizzle-orm";
import { type Database, executePrepared } from "./client";
import { addDeliveryJobSql } from "./webhook-outbox";

/**
 * The delivery task's database work, one statement (one round trip, its own transaction) per step: every
 * delivery pays it, so it is written in SQL rather than composed query by query.
 *
 * The claim and the outcome commit without waiting for the WAL flush (`synchronous_commit` off for their
 * own transaction only). A crash can then only lose the last few of them, which turns a delivery back into
 * an earlier state (queued, or delivering under a lease the sweep recovers): it may be sent again, but it is
 * never lost and never marked delivered without a 2xx. The outbox rows themselves are written by the event's
 * transaction, which keeps the writer's durable commit. Any later durable commit (graphile-worker's, right
 * after) flushes them anyway, since the WAL is flushed in order.
 */
const RELAXED_COMMIT = sql`relaxed_commit as (select set_config('synchronous_commit', 'off', true) as setting)`;

export interface DeliveryKey {
  organizationId: string;
  environment: Environment;
  deliveryId: string;
}

export interface ClaimedDeliveryRow {
  /** the attempt this claim is (attempts after it), its token */
  attempt: number;
  firstAttemptAt: Date;
  environment: Environment;
  webhookEndpointId: string | null;
  url: string;
  secretBox: string;
  event: ChainEvent;
}

export type ClaimedOrEnded = { claimed: ClaimedDeliveryRow } | { ended: string } | null;

interface ClaimRow {
  ended: string | null;
  attempts: number;
  first_attempt_at: string | null;
  environment: Environment;
  webhook_endpoint_id: string | null;
  url: string | null;
  secret_box: string | null;
  event_id: string | null;
  type: string;
  created: string;
  livemode: boolean;
  api_version: string;
  data: string;
  audit_ref: string;
  sequence: string;
  prev_hash: string;
  hash: string;
  signature: string;
}

/**
 * Claims one delivery in one statement. The row is taken FOR UPDATE SKIP LOCKED when it is `queued`, or
 * `delivering` under a lapsed lease; `null` when there is none (delivered, dead, held by a live lease, or
 * locked by another transaction right now). Its target is read in the same statement: a deleted or
 * disabled endpoint, a cleared fallback URL, or a hand-back past the retry window ends it as `dead` with
 * that reason; otherwise it becomes `delivering` with a lease, `attempts` + 1, and the signed event.
 */
export async function claimDeliveryRow(
  db: Database,
  key: DeliveryKey,
  options: { now: Date; leaseUntil: Date; windowMs: number },
): Promise<ClaimedOrEnded> {
  const now = options.now.toISOString();
  const rows = await executePrepared<ClaimRow>(
    db,
    sql`
    with ${RELAXED_COMMIT},
    candidate as (
      select d.organization_id, d.environment, d.id, d.webhook_endpoint_id, d.event_id, d.status,
             d.next_attempt_at, d.first_attempt_at
        from webhook_deliveries d
       where d.organization_id = ${key.organizationId} and d.environment = ${key.environment}
         and d.id = ${key.deliveryId}
         and (d.status = 'queued' or (d.status = 'delivering' and d.lease_expires_at < ${now}::timestamptz))
         for update skip locked
    ),
    target as (
      select c.organization_id, c.id, c.event_id, c.webhook_endpoint_id,
             coalesce(e.url, o.webhook_fallback_url) as url,
             coalesce(e.signing_secret_box, o.webhook_fallback_secret_box) as secret_box,
             case
               -- The schedule never puts an attempt after the window's end (its last retry lands on it);
               -- only a hand-back after a crash can, and it ends rather than loop past the window.
               when c.first_attempt_at is not null
                    and (case when c.status = 'queued' and c.next_attempt_at is not null
                              then c.next_attempt_at else ${now}::timestamptz end)
                        > c.first_attempt_at + ${options.windowMs} * interval '1 millisecond'
                 then 'retry window closed'
               when c.webhook_endpoint_id is null
                    and (o.webhook_fallback_url is null or o.webhook_fallback_secret_box is null)
                 then 'fallback URL cleared'
               when c.webhook_endpoint_id is not null
                    and (e.id is null or e.deleted_at is not null or e.signing_secret_box is null)
                 then 'endpoint deleted'
               when c.webhook_endpoint_id is not null and e.status <> 'enabled'
                 then 'endpoint disabled'
             end as ended
        from candidate c
        left join webhook_endpoints e
          on e.organization_id = c.organization_id and e.environment = c.environment and e.id = c.webhook_endpoint_id
        left join organizations o
          on c.webhook_endpoint_id is null and o.id = c.organization_id and o.environment = c.environment
    ),
    updated as (
      update webhook_deliveries d
         set status = case when t.ended is null then 'delivering' else 'dead' end,
             attempts = d.attempts + case when t.ended is null then 1 else 0 end,
             first_attempt_at = case when t.ended is null then coalesce(d.first_attempt_at, ${now}::timestamptz)
                                     else d.first_attempt_at end,
             lease_expires_at = case when t.ended is null then ${options.leaseUntil.toISOString()}::timestamptz end,
             last_error = coalesce(t.ended, d.last_error),
             next_attempt_at = null,
             updated_at = ${now}::timestamptz
        from target t
       where d.organization_id = t.organization_id and d.id = t.id
      returning d.organization_id, d.environment, d.attempts, d.first_attempt_at, t.webhook_endpoint_id, t.url,
                t.secret_box, t.ended, t.event_id
    )
    select u.ended, u.attempts,
           to_char(u.first_attempt_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as first_attempt_at,
           u.environment, u.webhook_endpoint_id, u.url, u.secret_box, ev.id as event_id, ev.type,
           to_char(ev.created at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created,
           ev.livemode, ev.api_version, ev.data::text as data, ev.audit_ref, ev.sequence::text as sequence,
           ev.prev_hash, ev.hash, ev.signature
      from updated u
      cross join relaxed_commit
      left join events ev on ev.organization_id = u.organization_id and ev.environment = u.environment
                         and ev.id = u.event_id`,
  );
  const [row] = rows;
  if (!row) return null;
  if (row.ended !== null) return { ended: row.ended };
  if (row.event_id === null || row.url === null || row.secret_box === null || row.first_attempt_at === null) {
    throw new Error(`webhook delivery ${key.deliveryId} was claimed without its event or target`);
  }
  return {
    claimed: {
      attempt: row.attempts,
      firstAttemptAt: new Date(row.first_attempt_at),
      environment: row.environment,
      webhookEndpointId: row.webhook_endpoint_id,
      url: row.url,
      secretBox: row.secret_box,
      event: {
        id: row.event_id,
        object: "event",
        type: row.type,
        created: row.created,
        livemode: row.livemode,
        api_version: row.api_version,
        data: JSON.parse(row.data) as Record<string, unknown>,
        audit_ref: row.audit_ref,
        sequence: Number(row.sequence),
        prev_hash: row.prev_hash,
        hash: row.hash,
        signature: row.signature,
      },
    },
  };
}

export interface DeliveryOutcomeRow {
  status: Exclude<WebhookDeliveryStatus, "delivering">;
  /** the receiver's status code; undefined keeps the last one (an attempt the worker itself cut short) */
  statusCode?: number | null;
  error: string | null;
  /** for `queued`: when to try again (a job is added to run then) */
  nextAttemptAt: Date | null;
}

/**
 * Writes one attempt's outcome, only if the delivery is still held by that attempt (`delivering`, with
 * `attempts` equal to the claim's), and for a retry adds its job in the same statement. Returns whether
 * it was written: false when the lease lapsed and a later attempt has the delivery now.
 */
export async function recordDeliveryOutcomeRow(
  db: Database,
  key: DeliveryKey,
  attempt: number,
  outcome: DeliveryOutcomeRow,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const keepCode = outcome.statusCode === undefined;
  const job = addDeliveryJobSql(sql`u.organization_id`, sql`u.environment`, sql`u.id`, sql`u.next_attempt_at`);
  const rows = await executePrepared<{ id: string }>(
    db,
    sql`
    with ${RELAXED_COMMIT},
    u as (
      update webhook_deliveries
         set status = ${outcome.status},
             delivered_at = case when ${outcome.status} = 'delivered' then ${at}::timestamptz end,
             last_status_code = case when ${keepCode} then last_status_code else ${outcome.statusCode ?? null}::int end,
             last_error = ${outcome.error},
             next_attempt_at = ${outcome.nextAttemptAt?.toISOString() ?? null}::timestamptz,
             lease_expires_at = null,
             updated_at = ${at}::timestamptz
       where organization_id = ${key.organizationId} and environment = ${key.environment} and id = ${key.deliveryId}
         and status = 'delivering' and attempts = ${attempt}
      returning organization_id, environment, id, status, next_attempt_at
    )
    -- The running job holds this key; adding it again leaves that one to finish and queues a new one.
    select u.id, case when u.status = 'queued' then (${job}).id end as job_id from u cross join relaxed_commit`,
  );
  return rows.length > 0;
}

/** Deliveries handled per statement: one short transaction each, so a large backlog never holds locks long. */
export const WEBHOOK_RECOVERY_BATCH_SIZE = 1_000;

export interface RecoveredDeliveries {
  /** `delivering` deliveries whose lease had lapsed (their worker died or stalled): queued again, to run now */
  leasesExpired: number;
  /** `queued` deliveries without a job that will run them: their job added again, to run at next_attempt_at */
  jobsRestored: number;
}

/**
 * The recovery sweep, across every organization. A delivery whose lease lapsed goes back to `queued` with
 * a job to run now (its interrupted attempt stays counted: the receiver may have seen it). A `queued`
 * delivery gets its job again when it has none, or only one locked for longer than `staleLockMs` (locked
 * by a worker that died, which graphile-worker would otherwise leave for 4 hours). Rows are taken FOR
 * UPDATE SKIP LOCKED, so the sweep never waits on, or doubles, a claim in progress.
 */
export async function recoverDeliveryRows(
  db: Database,
  now: Date,
  options: { staleLockMs: number; batchSize?: number },
): Promise<RecoveredDeliveries> {
  const batchSize = options.batchSize ?? WEBHOOK_RECOVERY_BATCH_SIZE;
  const at = now.toISOString();
  const staleBefore = new Date(now.getTime() - options.staleLockMs).toISOString();
  const job = addDeliveryJobSql(sql`r.organization_id`, sql`r.environment`, sql`r.id`, sql`r.run_at`);
  const result: RecoveredDeliveries = { leasesExpired: 0, jobsRestored: 0 };

  for (;;) {
    const rows = await db.execute(sql`
      with expired as (
        select organization_id, id from webhook_deliveries
         where status = 'delivering' and lease_expires_at < ${at}::timestamptz
         order by lease_expires_at
         limit ${batchSize}
           for update skip locked
      ),
      r as (
        update webhook_deliveries d
           set status = 'queued', lease_expires_at = null, next_attempt_at = ${at}::timestamptz,
               updated_at = ${at}::timestamptz
          from expired
         where d.organization_id = expired.organization_id and d.id = expired.id
        returning d.organization_id, d.environment, d.id, d.next_attempt_at as run_at
      )
      select (${job}).id from r`);
    result.leasesExpired += rows.length;
    if (rows.length < batchSize) break;
  }

  for (;;) {
    const rows = await db.execute(sql`
      with r as (
        select d.organization_id, d.environment, d.id, greatest(d.next_attempt_at, ${at}::timestamptz) as run_at
          from webhook_deliveries d
         where d.status = 'queued'
           and not exists (select 1 from graphile_worker.jobs j
                            where j.key = d.id and j.attempts < j.max_attempts
                              and (j.locked_at is null or j.locked_at > ${staleBefore}::timestamptz))
         order by d.next_attempt_at
         limit ${batchSize}
           for update of d skip locked
      )
      select (${job}).id from r`);
    result.jobsRestored += rows.length;
    if (rows.length < batchSize) break;
  }
  return result;
}
