import type { Judgment, judgmentOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../context";
import { loadMatter } from "../matters/load-matter";
import { viewJudgment } from "./judgment-view";
import { loadJudgment } from "./load-judgment";

export async function retrieveJudgment(
  read: ReadContext,
  { params }: OperationInput<typeof judgmentOperations.get>,
): Promise<Judgment> {
  const judgment = await loadJudgment(read.db, read.actor, params.judgment_id);
  const matter = await loadMatter(read.db, read.actor, judgment.matterId);
  return viewJudgment(read.db, { tenant: read.actor, newId: read.newId, clock: read.clock }, judgment, matter);
}
