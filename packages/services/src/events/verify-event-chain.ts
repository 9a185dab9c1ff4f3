import { badRequest, type ChainVerification, type eventOperations, type OperationInput } from "@crs/contract";
import {
  type ChainBreak,
  type ChainCheckpoint,
  type ChainPoint,
  createChainVerifier,
  formatTimestamp,
  verifyCheckpointSignature,
} from "@crs/core";
import { CHAIN_EVENT_TEXT_COLUMNS, type ChainEventTextRow, chainEventFromText } from "@crs/db";
import type { ReadContext } from "../context";
import { recordedChainHead } from "./chain-checkpoint";
import { createSignaturePool, type SignaturePool, signaturePoolsOpen } from "./signature-pool";

const BATCH = 500;

export interface ChainWalkOptions {
  /**
   * From how many events to check the walk's signatures on worker threads. Below it, starting threads
   * (tens of milliseconds) costs more than they save.
   */
  parallelFromEvents: number;
  /** threads for a parallel walk; default: one per core */
  threads?: number;
}

const DEFAULT_WALK: ChainWalkOptions = { parallelFromEvents: 20_000 };
/**
 * Threads serve one long walk at a time per process: a walk that starts while another holds them checks its
 * signatures on its own thread, as a short walk does, so a burst of verify-chain calls never starts more
 * threads than one pool's.
 */
const THREADED_WALKS_AT_ONCE = 1;

/** The checkpoint the query carries, once its signature is known to be this service's, for the caller's chain. */
function keptCheckpoint(read: ReadContext, query: OperationInput<typeof eventOperations.verifyChain>["query"]) {
  const { checkpoint_sequence, checkpoint_hash, checkpoint_issued_at, checkpoint_signature } = query;
  if (
    checkpoint_sequence === undefined ||
    checkpoint_hash === undefined ||
    checkpoint_issued_at === undefined ||
    checkpoint_signature === undefined
  ) {
    return null;
  }
  const checkpoint: ChainCheckpoint = {
    object: "chain_checkpoint",
    livemode: read.actor.environment === "live",
    sequence: checkpoint_sequence,
    hash: checkpoint_hash,
    issued_at: checkpoint_issued_at,
    signature: checkpoint_signature,
  };
  if (!verifyCheckpointSignature(checkpoint, read.eventSigningKey)) {
    throw badRequest(
      "The checkpoint's signature does not verify: it was not issued by this service for this environment, " +
        "or one of its fields was changed.",
      "checkpoint_signature",
    );
  }
  return { sequence: checkpoint.sequence, hash: checkpoint.hash };
}

/**
 * With a kept checkpoint, the log must still contain it (`rollback` otherwise); with since_checkpoint=true the
 * walk starts at it. The recorded head is read before the walk, so a log that ends before it lost its tail
 * (`truncated`); events appended during the walk are simply checked too.
 *
 * Streams the organization's log in sequence order through a server-side cursor, BATCH
 * rows at a time, and checks each link against only the previous one: memory stays constant
 * however long the log. Columns are read as text so nothing is reinterpreted before hashing; the
 * ORDER BY names the table's bigint column, since a bare `sequence` would sort the text alias
 * (1, 10, 11, …, 2) and report a false sequence_gap once a chain reaches ten events.
 */
export async function verifyEventChain(
  read: ReadContext,
  { query }: OperationInput<typeof eventOperations.verifyChain>,
  walk: ChainWalkOptions = DEFAULT_WALK,
): Promise<ChainVerification> {
  const { actor } = read;
  const checkpoint = keptCheckpoint(read, query);
  const from: ChainPoint | null = checkpoint && query.since_checkpoint === "true" ? checkpoint : null;
  const recordedHead = await recordedChainHead(read);
  const verifier = createChainVerifier(read.eventSigningKey, {
    ...(checkpoint ? { checkpoint } : {}),
    ...(from ? { from } : {}),
  });
  // postgres.js, not drizzle: drizzle has no cursors. The tenant filter is tenantScope's, spelled in SQL.
  const cursor = read.sql<ChainEventTextRow[]>`
    select ${read.sql.unsafe(CHAIN_EVENT_TEXT_COLUMNS)}
      from events
     where organization_id = ${actor.organizationId} and environment = ${actor.environment}
       and events.sequence >= ${from?.sequence ?? 0}
     order by events.sequence asc`.cursor(BATCH);
  const expectedEvents = recordedHead.sequence - (from?.sequence ?? 0);
  const pool =
    expectedEvents >= walk.parallelFromEvents && signaturePoolsOpen() < THREADED_WALKS_AT_ONCE
      ? createSignaturePool(read.eventSigningKey, walk.threads)
      : null;
  let firstBreak: ChainBreak | null;
  try {
    firstBreak = pool ? await walkWithPool(cursor, verifier, pool) : await walkInline(cursor, verifier);
  } finally {
    await pool?.close();
  }
  firstBreak ??= verifier.finish(recordedHead);
  return {
    object: "chain_verification",
    valid: firstBreak === null,
    events_checked: verifier.eventsChecked,
    first_break: firstBreak,
    head: verifier.head,
    started_from: from,
    verified_at: formatTimestamp(read.clock()),
  };
}

type ChainVerifier = ReturnType<typeof createChainVerifier>;

async function walkInline(
  cursor: AsyncIterable<ChainEventTextRow[]>,
  verifier: ChainVerifier,
): Promise<ChainBreak | null> {
  for await (const rows of cursor) {
    for (const row of rows) {
      const found = verifier.check(chainEventFromText(row));
      if (found) return found;
    }
  }
  return null;
}

/**
 * Each batch's signatures go to the pool as soon as it is read; this thread then parses, hashes and links
 * the oldest batch with its verdicts in sequence order, so the first break is the same as inline. At most
 * two batches per thread are in flight, which keeps memory constant.
 */
async function walkWithPool(
  cursor: AsyncIterable<ChainEventTextRow[]>,
  verifier: ChainVerifier,
  pool: SignaturePool,
): Promise<ChainBreak | null> {
  const inFlight: { rows: ChainEventTextRow[]; verdicts: Promise<Uint8Array> }[] = [];
  const checkOldest = async (): Promise<ChainBreak | null> => {
    const oldest = inFlight.shift();
    if (!oldest) return null;
    const verdicts = await oldest.verdicts;
    for (const [index, row] of oldest.rows.entries()) {
      const found = verifier.check(chainEventFromText(row), verdicts[index] === 1);
      if (found) return found;
    }
    return null;
  };
  for await (const rows of cursor) {
    inFlight.push({ rows, verdicts: pool.verify(rows) });
    if (inFlight.length > pool.threads * 2) {
      const found = await checkOldest();
      if (found) return found;
    }
  }
  while (inFlight.length > 0) {
    const found = await checkOldest();
    if (found) return found;
  }
  return null;
}
