import type { MatterAuthority, OperationInput, operatorOperations } from "@crs/contract";
import type { ReadContext } from "../context";
import { deriveAuthorityOfMatter } from "../judgments/matter-authority";
import { loadMatter } from "../matters/load-matter";

export async function retrieveMatterAuthority(
  read: ReadContext,
  { query }: OperationInput<typeof operatorOperations.authority>,
): Promise<MatterAuthority> {
  const matter = await loadMatter(read.db, read.actor, query.matter_id);
  return deriveAuthorityOfMatter(read.db, read.actor, matter.id);
}
