import type { Debtor, debtorOperations, OperationInput } from "@crs/contract";
import type { WriteContext } from "../../context";
import { updateParty } from "../../parties/update-party";
import { loadDebtor } from "./load-debtor";
import { presentDebtor } from "./present-debtor";

/**
 * Updates the debtor's party. A debtor's legal name is also its name (as the debtor was created), so
 * the two change together; its role cannot change here.
 */
export async function updateDebtor(
  write: WriteContext,
  { params, body }: OperationInput<typeof debtorOperations.update>,
): Promise<Debtor> {
  await loadDebtor(write.tx, write.actor, params.debtor_id);
  const party = await updateParty(write, {
    params: { party_id: params.debtor_id },
    body: {
      ...(body.legal_name !== undefined ? { legal_name: body.legal_name, name: body.legal_name } : {}),
      ...(body.aliases !== undefined ? { aliases: body.aliases } : {}),
      ...(body.identifiers !== undefined ? { identifiers: body.identifiers } : {}),
      ...(body.wallets !== undefined ? { wallets: body.wallets } : {}),
    },
  });
  return presentDebtor(party);
}
