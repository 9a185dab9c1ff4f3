import type { OperationInput, Party, partyOperations } from "@crs/contract";
import { formatMinorUnits, SHARE_DECIMALS, shareToUnits } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { holdMatterForHits, recordSanctionsHits } from "../sanctions/record-sanctions-hits";
import { assertClaimantSharesFit } from "./assert-claimant-shares-fit";
import { presentParty } from "./present-party";
import { walletsOf } from "./wallets-of";

export async function createParty(
  write: WriteContext,
  { body }: OperationInput<typeof partyOperations.create>,
): Promise<Party> {
  const { tx, actor } = write;
  // Every write to a matter's parties takes this lock first: it serializes the claimant share sum.
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const share = body.share ?? null;
  if (body.role === "claimant") await assertClaimantSharesFit(tx, actor, matter.id, share);
  const now = write.clock();
  const [row] = await tx
    .insert(schema.parties)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("party"),
      matterId: matter.id,
      role: body.role,
      name: body.name,
      legalName: body.legal_name ?? null,
      type: body.type ?? null,
      aliases: body.aliases ?? [],
      identifiers: body.identifiers ?? {},
      wallets: walletsOf(body.wallets ?? []),
      economics: body.economics ?? {},
      contact: body.contact ?? {},
      notes: body.notes ?? null,
      share: share === null ? null : formatMinorUnits(shareToUnits(share), SHARE_DECIMALS),
      status: "active",
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("party insert returned nothing");
  const hits = await recordSanctionsHits(write, matter, row);
  const party = presentParty(row, hits);
  write.recordEvent({ type: "party.created", idField: "party_id", object: party, matterId: matter.id });
  await holdMatterForHits(write, matter, hits);
  return party;
}
