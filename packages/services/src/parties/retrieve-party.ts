import type { OperationInput, Party, partyOperations } from "@crs/contract";
import type { ReadContext } from "../context";
import { loadSanctionsHitsByParty } from "../sanctions/record-sanctions-hits";
import { loadParty } from "./load-party";
import { presentParty } from "./present-party";

export async function retrieveParty(
  read: ReadContext,
  { params }: OperationInput<typeof partyOperations.get>,
): Promise<Party> {
  const row = await loadParty(read.db, read.actor, params.party_id);
  const hits = await loadSanctionsHitsByParty(read.db, read.actor, [row.id]);
  return presentParty(row, hits.get(row.id) ?? []);
}
