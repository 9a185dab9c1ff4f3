import type { OperationInput, Party, partyOperations } from "@crs/contract";
import { canonicalize, formatMinorUnits, SHARE_DECIMALS, shareToUnits } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { assertMatterWritable } from "../matters/assert-matter-writable";
import { lockMatter } from "../matters/load-matter";
import { previousAttributes } from "../previous-attributes";
import { holdMatterForHits, loadSanctionsHitsByParty, recordSanctionsHits } from "../sanctions/record-sanctions-hits";
import { assertClaimantSharesFit, assertShareMatchesRole } from "./assert-claimant-shares-fit";
import { loadParty } from "./load-party";
import { presentParty, shareOf } from "./present-party";
import { walletsOf } from "./wallets-of";

export async function updateParty(
  write: WriteContext,
  { params, body }: OperationInput<typeof partyOperations.update>,
): Promise<Party> {
  const { tx, actor } = write;
  // A party never changes matter, so its matter can be read before the lock; the party itself is
  // read again under the lock, which every write to the matter's parties takes first.
  const { matterId } = await loadParty(tx, actor, params.party_id);
  const matter = await lockMatter(tx, actor, matterId);
  assertMatterWritable(matter);
  const current = await loadParty(tx, actor, params.party_id);
  const hitsBefore = (await loadSanctionsHitsByParty(tx, actor, [current.id])).get(current.id) ?? [];
  const before = presentParty(current, hitsBefore);

  const role = body.role ?? current.role;
  const share = body.share !== undefined ? body.share : shareOf(current);
  assertShareMatchesRole(role, share);
  const requested = {
    name: body.name,
    legalName: body.legal_name,
    role: body.role,
    type: body.type,
    aliases: body.aliases,
    identifiers: body.identifiers,
    wallets: body.wallets === undefined ? undefined : walletsOf(body.wallets),
    economics: body.economics,
    contact: body.contact,
    notes: body.notes,
    status: body.status,
    share:
      body.share === undefined
        ? undefined
        : body.share === null
          ? null
          : formatMinorUnits(shareToUnits(body.share), SHARE_DECIMALS),
  };
  // Only fields whose value really changes are written; a PATCH that changes nothing writes nothing
  // and appends no event.
  const changes = Object.fromEntries(
    Object.entries(requested).filter(
      ([field, value]) =>
        value !== undefined && canonicalize(value) !== canonicalize(current[field as keyof typeof current]),
    ),
  );
  if (Object.keys(changes).length === 0) return before;
  if (role === "claimant") await assertClaimantSharesFit(tx, actor, matter.id, share, current.id);

  const now = write.clock();
  const [row] = await tx
    .update(schema.parties)
    .set({ ...changes, ...writeStamp(actor, now) })
    .where(tenantRow(schema.parties, actor, current.id))
    .returning();
  if (!row) throw new Error("party update returned nothing");
  const hits = await recordSanctionsHits(write, matter, row);
  const party = presentParty(row, [...hitsBefore, ...hits]);
  write.recordEvent({
    type: "party.updated",
    idField: "party_id",
    object: party,
    matterId: matter.id,
    extra: { previous_attributes: previousAttributes(before, party) },
  });
  await holdMatterForHits(write, matter, hits);
  return party;
}
