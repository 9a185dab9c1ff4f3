import { ID_ALPHABET, MAX_WEBHOOK_ENDPOINTS } from "@crs/core";
import { type SQL, sql } from "drizzle-orm";

/** The graphile-worker task that sends one delivery; its payload is a `WebhookDeliveryJob`. */
export const WEBHOOK_DELIVERY_TASK = "webhook.deliver";

export interface WebhookDeliveryJob {
  organization_id: string;
  environment: string;
  webhook_delivery_id: string;
}

/**
 * The values webhookOutboxCtes reads, by placeholder name: the event's `organizationId`, `environment`,
 * `eventId`, `eventType`, `at` (its time, ISO text) and `deliveryIdBase`, a fresh `whd_` id. One event's
 * deliveries take its first 28 characters and end in two characters numbering them (00, 01, …), so
 * their ids are minted without a round trip per delivery and still sort by time.
 */
export interface WebhookOutboxValues {
  organizationId: string;
  environment: string;
  eventId: string;
  eventType: string;
  at: string;
  deliveryIdBase: string;
}

if (MAX_WEBHOOK_ENDPOINTS > ID_ALPHABET.length ** 2) {
  throw new Error("two id characters must be enough to number one event's deliveries");
}

/**
 * The outbox, as CTEs to append to the statement that inserts the event, so an event and its deliveries
 * cost one round trip: `webhook_targets` are the enabled endpoints of the event's organization and
 * environment whose filter holds `*` or the event's type, or, when the organization has no endpoint at
 * all (enabled or not), its fallback URL; `webhook_deliveries_added` inserts one queued delivery per
 * target. The statement must end with `webhookDeliveryJobsSelect`, which adds each delivery's job.
 * Its values are placeholders (WebhookOutboxValues), filled when the statement runs.
 */
export function webhookOutboxCtes(): SQL {
  const value = (name: keyof WebhookOutboxValues) => sql.placeholder(name);
  const organizationId = value("organizationId");
  const environment = value("environment");
  const eventType = value("eventType");
  const at = value("at");
  return sql`
    webhook_targets as (
      select e.id as endpoint_id, e.id as ordinal
        from webhook_endpoints e
       where e.organization_id = ${organizationId} and e.environment = ${environment}
         and e.deleted_at is null and e.status = 'enabled'
         and e.enabled_events && array['*', ${eventType}]::text[]
      union all
      select null, ''
        from organizations o
       where o.id = ${organizationId} and o.environment = ${environment} and o.webhook_fallback_url is not null
         and not exists (select 1 from webhook_endpoints x
                          where x.organization_id = ${organizationId} and x.environment = ${environment}
                            and x.deleted_at is null)
    ),
    webhook_deliveries_added as (
      insert into webhook_deliveries (organization_id, environment, id, webhook_endpoint_id, event_id, event_type,
                                      status, attempts, created_at, updated_at, next_attempt_at)
      select ${organizationId}, ${environment},
             left(${value("deliveryIdBase")}, -2) || substr(${ID_ALPHABET}, (n / 32)::int + 1, 1)
                                         || substr(${ID_ALPHABET}, (n % 32)::int + 1, 1),
             endpoint_id, ${value("eventId")}, ${eventType}, 'queued', 0,
             ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
        from (select endpoint_id, row_number() over (order by ordinal) - 1 as n from webhook_targets) numbered
      returning organization_id, environment, id
    )`;
}

/** Adds one delivery job per delivery the outbox CTEs inserted (graphile-worker's add_job, job_key = the delivery id). */
export function webhookDeliveryJobsSelect(): SQL {
  return sql`
    select (${addDeliveryJobSql(sql`d.organization_id`, sql`d.environment`, sql`d.id`, sql`null`)}).id::text as job_id
      from webhook_deliveries_added d`;
}

/**
 * graphile-worker's add_job for one delivery. The job key is the delivery id, so a delivery has at most one
 * pending job (adding it again replaces it); no queue name, so deliveries run in parallel and a slow endpoint
 * never holds up another. Graphile's own retries only ever cover a task that threw (a database error); the
 * delivery schedule itself is kept on the delivery row.
 */
export function addDeliveryJobSql(organizationId: SQL, environment: SQL, deliveryId: SQL, runAt: SQL): SQL {
  return sql`graphile_worker.add_job(
    ${WEBHOOK_DELIVERY_TASK},
    json_build_object('organization_id', ${organizationId}, 'environment', ${environment},
                      'webhook_delivery_id', ${deliveryId}),
    run_at => ${runAt}::timestamptz,
    job_key => ${deliveryId})`;
}
