import type { OperationInput, partyOperations } from "@crs/contract";
import type { ReadContext } from "../context";
import { loadMatter } from "../matters/load-matter";
import { listPartyPage } from "./list-parties";

/** The parties of one matter; an unknown matter is 404, not an empty list. */
export async function listMatterParties(
  read: ReadContext,
  { params, query }: OperationInput<typeof partyOperations.listByMatter>,
) {
  const matter = await loadMatter(read.db, read.actor, params.matter_id);
  return listPartyPage(read, read.actor, { ...query, matter_id: matter.id }, `/v1/matters/${matter.id}/parties`);
}
