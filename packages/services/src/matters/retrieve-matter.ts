import type { Matter, matterOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../context";
import { loadMatter } from "./load-matter";
import { presentMatter } from "./present-matter";

export async function retrieveMatter(
  read: ReadContext,
  { params }: OperationInput<typeof matterOperations.get>,
): Promise<Matter> {
  return presentMatter(await loadMatter(read.db, read.actor, params.matter_id));
}
