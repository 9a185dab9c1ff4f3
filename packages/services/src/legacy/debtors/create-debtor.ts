import type { Debtor, debtorOperations, OperationInput } from "@crs/contract";
import type { WriteContext } from "../../context";
import { createParty } from "../../parties/create-party";
import { presentDebtor } from "./present-debtor";

/** A debtor is created as a party with role debtor, named by its legal name. */
export async function createDebtor(
  write: WriteContext,
  { body }: OperationInput<typeof debtorOperations.create>,
): Promise<Debtor> {
  const party = await createParty(write, {
    params: {},
    body: {
      matter_id: body.matter_id,
      role: "debtor",
      name: body.legal_name,
      legal_name: body.legal_name,
      type: body.type ?? null,
      ...(body.aliases ? { aliases: body.aliases } : {}),
      ...(body.identifiers ? { identifiers: body.identifiers } : {}),
      ...(body.wallets ? { wallets: body.wallets } : {}),
    },
  });
  return presentDebtor(party);
}
