import type { Debtor, debtorOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../../context";
import { presentParty } from "../../parties/present-party";
import { loadSanctionsHitsByParty } from "../../sanctions/record-sanctions-hits";
import { loadDebtor } from "./load-debtor";
import { presentDebtor } from "./present-debtor";

export async function retrieveDebtor(
  read: ReadContext,
  { params }: OperationInput<typeof debtorOperations.get>,
): Promise<Debtor> {
  const row = await loadDebtor(read.db, read.actor, params.debtor_id);
  const hits = await loadSanctionsHitsByParty(read.db, read.actor, [row.id]);
  return presentDebtor(presentParty(row, hits.get(row.id) ?? []));
}
