import type { ChainCheckpoint } from "@crs/contract";
import { type ChainPoint, formatTimestamp, GENESIS_PREV_HASH, signCheckpoint } from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import type { ReadContext } from "../context";

/** The head the service recorded for the caller's chain (the row every append moves), or the empty log's. */
export async function recordedChainHead(read: ReadContext): Promise<ChainPoint> {
  const h = schema.chainHeads;
  const [row] = await read.db
    .select({ sequence: h.headSequence, hash: h.headHash })
    .from(h)
    .where(tenantScope(h, read.actor));
  return row ?? { sequence: 0, hash: GENESIS_PREV_HASH };
}

/**
 * The current head, signed: a client that keeps it can later prove the log still contains it (verify-chain
 * reports `rollback` otherwise) and verify only what came after it.
 */
export async function retrieveEventCheckpoint(read: ReadContext): Promise<ChainCheckpoint> {
  const head = await recordedChainHead(read);
  return signCheckpoint(
    {
      livemode: read.actor.environment === "live",
      sequence: head.sequence,
      hash: head.hash,
      issued_at: formatTimestamp(read.clock()),
    },
    read.eventSigningKey,
  );
}
