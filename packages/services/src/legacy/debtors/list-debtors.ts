import type { debtorOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../../context";
import { listPartyPage } from "../../parties/list-parties";
import { presentDebtor } from "./present-debtor";

export async function listDebtors(read: ReadContext, { query }: OperationInput<typeof debtorOperations.list>) {
  const page = await listPartyPage(read, read.actor, { ...query, role: "debtor" }, "/v1/debtors");
  return { ...page, data: page.data.map(presentDebtor) };
}
