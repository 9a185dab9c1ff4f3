import type { ChainEvent, Environment, WebhookDeliveryStatus } from "@crs/core";
import { sql } from "drizzle-orm";
import { type Database, executePrepared } from "./client";
import { type ChainEventTextRow, chainEventFromText } from "./event-log";
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

/** One delivery a claim took: attempted now under a lease, or ended without an attempt (and why). */
export type ClaimedOrEnded = DeliveryKey & ({ claimed: ClaimedDeliveryRow } | { ended: string });

/** A claimed or ended delivery row, with its event's columns as chainEventFromText reads them (set when event_id is). */
interface ClaimRow extends Omit<ChainEventTextRow, "id"> {
  organization_id: string;
  id: string;
  ended: string | null;
  attempts: number;
  first_attempt_at: string | null;
  environment: Environment;
  webhook_endpoint_id: string | null;
  url: string | null;
  secret_box: string | null;
  event_id: string | null;
}

export interface ClaimDeliveriesOptions {
  now: Date;
  leaseUntil: Date;
  windowMs: number;
  /**
   * Other due deliveries (`queued`, `next_attempt_at` reached, of any organization) to take in the same
   * statement, oldest first, besides the one named: 0 claims only that one.
   */
  alsoDue: number;
}

/**
 * Claims the named delivery and up to `alsoDue` other due ones in one statement (one round trip, its own
 * transaction). Rows are taken FOR UPDATE SKIP LOCKED: the named one when it is `queued`, or `delivering`
 * under a lapsed lease; the others when they are `queued` and due. A row locked by another claim right now is
 * skipped, never waited for, so two claims never take the same delivery. Each one's target is read in the same
 * statement: a deleted or disabled endpoint, a cleared fallback URL, or a hand-back past the retry window ends
 * it as `dead` with that reason; otherwise it becomes `delivering` with a lease, `attempts` + 1, and the signed
 * event. The pending graphile-worker job of each other delivery taken is deleted in the same statement (it
 * would only find the delivery taken); a job already locked by a worker is left to run and skip. The named
 * delivery's own job is the one running this claim. An empty list: nothing to do.
 */
export async function claimDeliveryRows(
  db: Database,
  key: DeliveryKey,
  options: ClaimDeliveriesOptions,
): Promise<ClaimedOrEnded[]> {
  const now = options.now.toISOString();
  const rows = await executePrepared<ClaimRow>(
    db,
    sql`
    with ${RELAXED_COMMIT},
    named as (
      select d.organization_id, d.environment, d.id, d.webhook_endpoint_id, d.event_id, d.status,
             d.next_attempt_at, d.first_attempt_at
        from webhook_deliveries d
       where d.organization_id = ${key.organizationId} and d.environment = ${key.environment}
         and d.id = ${key.deliveryId}
         and (d.status = 'queued' or (d.status = 'delivering' and d.lease_expires_at < ${now}::timestamptz))
         for update skip locked
    ),
    also_due as (
      select d.organization_id, d.environment, d.id, d.webhook_endpoint_id, d.event_id, d.status,
             d.next_attempt_at, d.first_attempt_at
        from webhook_deliveries d
       where d.status = 'queued' and d.next_attempt_at <= ${now}::timestamptz
         and not (d.organization_id = ${key.organizationId} and d.id = ${key.deliveryId})
       order by d.next_attempt_at
       limit ${options.alsoDue}::int
         for update skip locked
    ),
    candidate as (select * from named union all select * from also_due),
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
         -- Keys as arrays too, so the rows are found through the primary key whatever the plan's row estimate
         -- (without them a generic plan may hash-join against a scan of the whole table).
         and d.organization_id = any(array(select organization_id from target))
         and d.id = any(array(select id from target))
      returning d.organization_id, d.environment, d.id, d.attempts, d.first_attempt_at, t.webhook_endpoint_id,
                t.url, t.secret_box, t.ended, t.event_id
    ),
    -- graphile-worker's remove_job, without its NOTIFY (which would wake every worker to find nothing); a
    -- locked job is running somewhere and finds its delivery taken. Job keys are delivery ids (the outbox's).
    jobs_removed as (
      delete from graphile_worker._private_jobs j
       using updated u
       where j.key = u.id and j.locked_at is null
         and not (u.organization_id = ${key.organizationId} and u.id = ${key.deliveryId})
    )
    select u.organization_id, u.id, u.ended, u.attempts,
           to_char(u.first_attempt_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as first_attempt_at,
           u.environment, u.webhook_endpoint_id, u.url, u.secret_box, ev.id as event_id, ev.type,
           to_char(ev.created at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created,
           ev.livemode, ev.api_version, ev.data::text as data, ev.audit_ref, ev.sequence::text as sequence,
           ev.prev_hash, ev.hash, ev.signature
      from updated u
      cross join relaxed_commit
      -- By the unique (organization_id, id) alone: with the environment in the condition too, a plan may walk
      -- the organization's whole (organization_id, environment, matter_id) index for each row instead. A
      -- delivery's event is its own organization's and environment's: the outbox wrote both in one statement.
      left join events ev on ev.organization_id = u.organization_id and ev.id = u.event_id`,
  );
  return rows.map((row) => claimedOrEnded(row));
}

function claimedOrEnded(row: ClaimRow): ClaimedOrEnded {
  const key = { organizationId: row.organization_id, environment: row.environment, deliveryId: row.id };
  if (row.ended !== null) return { ...key, ended: row.ended };
  if (row.event_id === null || row.url === null || row.secret_box === null || row.first_attempt_at === null) {
    throw new Error(`webhook delivery ${row.id} was claimed without its event or target`);
  }
  return {
    ...key,
    claimed: {
      attempt: row.attempts,
      firstAttemptAt: new Date(row.first_attempt_at),
      environment: row.environment,
      webhookEndpointId: row.webhook_endpoint_id,
      url: row.url,
      secretBox: row.secret_box,
      event: chainEventFromText({ ...row, id: row.event_id }),
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

/** One claimed attempt's outcome: which delivery, the claim's token (`attempts` when it was claimed), the row. */
export interface DeliveryOutcome {
  key: DeliveryKey;
  attempt: number;
  outcome: DeliveryOutcomeRow;
}

/**
 * Writes attempts' outcomes in one statement, each only if its delivery is still held by that attempt
 * (`delivering`, with `attempts` equal to the claim's), and for a retry adds its job in the same statement.
 * Returns the ids of the deliveries written; one missing is one whose lease lapsed and that a later attempt
 * has now.
 */
export async function recordDeliveryOutcomeRows(
  db: Database,
  outcomes: readonly DeliveryOutcome[],
  now: Date,
): Promise<Set<string>> {
  if (outcomes.length === 0) return new Set();
  const at = now.toISOString();
  const input = JSON.stringify(
    outcomes.map(({ key, attempt, outcome }) => ({
      organization_id: key.organizationId,
      environment: key.environment,
      id: key.deliveryId,
      attempt,
      status: outcome.status,
      keep_code: outcome.statusCode === undefined,
      status_code: outcome.statusCode ?? null,
      error: outcome.error,
      next_attempt_at: outcome.nextAttemptAt?.toISOString() ?? null,
    })),
  );
  const job = addDeliveryJobSql(sql`u.organization_id`, sql`u.environment`, sql`u.id`, sql`u.next_attempt_at`);
  const rows = await executePrepared<{ id: string }>(
    db,
    sql`
    with ${RELAXED_COMMIT},
    input as (
      select * from jsonb_to_recordset(${input}::jsonb)
          as i(organization_id text, environment text, id text, attempt int, status text, keep_code boolean,
               status_code int, error text, next_attempt_at timestamptz)
    ),
    u as (
      update webhook_deliveries d
         set status = i.status,
             delivered_at = case when i.status = 'delivered' then ${at}::timestamptz end,
             last_status_code = case when i.keep_code then d.last_status_code else i.status_code end,
             last_error = i.error,
             next_attempt_at = i.next_attempt_at,
             lease_expires_at = null,
             updated_at = ${at}::timestamptz
        from input i
       where d.organization_id = i.organization_id and d.environment = i.environment and d.id = i.id
         and d.organization_id = any(array(select organization_id from input))
         and d.id = any(array(select id from input))
         and d.status = 'delivering' and d.attempts = i.attempt
      returning d.organization_id, d.environment, d.id, d.status, d.next_attempt_at
    )
    -- The running job holds this key; adding it again leaves that one to finish and queues a new one.
    select u.id, case when u.status = 'queued' then (${job}).id end as job_id from u cross join relaxed_commit`,
  );
  return new Set(rows.map((row) => row.id));
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
