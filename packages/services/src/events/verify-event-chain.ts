import type { ChainVerification } from "@crs/contract";
import { type ChainBreak, type ChainEvent, createChainVerifier, formatTimestamp } from "@crs/core";
import type { Actor, ServiceDeps } from "../context";

const BATCH = 500;

interface RawEventRow {
  id: string;
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
 * Streams the organization's whole log in sequence order through a server-side cursor, BATCH
 * rows at a time, and checks each link against only the previous one: memory stays constant
 * however long the log. Columns are read as text so nothing is reinterpreted before hashing; the
 * ORDER BY names the table's bigint column, since a bare `sequence` would sort the text alias
 * (1, 10, 11, …, 2) and report a false sequence_gap once a chain reaches ten events.
 */
export async function verifyEventChain(deps: ServiceDeps, actor: Actor): Promise<ChainVerification> {
  const verifier = createChainVerifier(deps.eventSigningKey);
  let firstBreak: ChainBreak | null = null;
  const cursor = deps.sql<RawEventRow[]>`
    select id, type,
           to_char(created at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created,
           livemode, api_version, data::text as data, audit_ref, sequence::text as sequence,
           prev_hash, hash, signature
      from events
     where organization_id = ${actor.organizationId} and environment = ${actor.environment}
     order by events.sequence asc`.cursor(BATCH);
  outer: for await (const rows of cursor) {
    for (const row of rows) {
      const event: ChainEvent = {
        id: row.id,
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
      };
      firstBreak = verifier.check(event);
      if (firstBreak) break outer;
    }
  }
  return {
    object: "chain_verification",
    valid: firstBreak === null,
    events_checked: verifier.eventsChecked,
    first_break: firstBreak,
    head: verifier.head,
    verified_at: formatTimestamp(deps.clock()),
  };
}
