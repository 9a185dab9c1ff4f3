import { sql } from "drizzle-orm";
import { statementBuiltOnce } from "./client";

/*
 * The two statements of every idempotent write, in SQL rendered once and run prepared: drizzle's
 * builder renders a statement again on every call, and inside a transaction it cannot prepare one.
 */
const value = (name: string) => sql.placeholder(name);

/** The unexpired record of a key (tenantScope's filter, spelled in SQL), rendered once and run prepared. */
export const findIdempotencyRecord = statementBuiltOnce<{
  operation: string;
  request_hash: string;
  response_status: number;
  response_body: string;
  response_request_id: string;
}>(
  () => sql`
    select operation, request_hash, response_status, response_body, response_request_id
      from idempotency_records
     where organization_id = ${value("organizationId")} and environment = ${value("environment")}
       and key = ${value("key")} and expires_at > ${value("now")}::timestamptz`,
);

/** Stores a key's answer; an expired record of the same key is overwritten (after 24 hours the key is free again). */
export const storeIdempotencyRecord = statementBuiltOnce(
  () => sql`
    insert into idempotency_records (organization_id, environment, key, operation, request_hash, response_status,
                                     response_body, response_request_id, created_at, expires_at)
    values (${value("organizationId")}, ${value("environment")}, ${value("key")}, ${value("operation")},
            ${value("requestHash")}, ${value("responseStatus")}, ${value("responseBody")}, ${value("responseRequestId")},
            ${value("createdAt")}::timestamptz, ${value("expiresAt")}::timestamptz)
    on conflict (organization_id, environment, key) do update
       set operation = excluded.operation, request_hash = excluded.request_hash,
           response_status = excluded.response_status, response_body = excluded.response_body,
           response_request_id = excluded.response_request_id, created_at = excluded.created_at,
           expires_at = excluded.expires_at`,
);
