import type { Deadline, judgmentOperations, OperationInput } from "@crs/contract";
import { calendarDateOf } from "@crs/core";
import type { ReadContext } from "../context";
import { loadMatter } from "../matters/load-matter";
import { listEnvelope } from "../pagination";
import { computeJudgmentDeadlines, identifyDeadlines, loadPacketExportsForDeadlines } from "./judgment-deadlines";
import { loadJudgment } from "./load-judgment";

/** Every deadline of the judgment, by date: a handful, computed, so always one page. */
export async function listJudgmentDeadlines(
  read: ReadContext,
  { params }: OperationInput<typeof judgmentOperations.deadlines>,
) {
  const judgment = await loadJudgment(read.db, read.actor, params.judgment_id);
  const matter = await loadMatter(read.db, read.actor, judgment.matterId);
  const now = read.clock();
  const packetExports = await loadPacketExportsForDeadlines(read.db, read.actor, [judgment.id]);
  const data: Deadline[] = await identifyDeadlines(
    read.db,
    { tenant: read.actor, newId: read.newId, now },
    judgment,
    computeJudgmentDeadlines(judgment, matter, calendarDateOf(now), packetExports.get(judgment.id) ?? []),
  );
  return listEnvelope(`/v1/judgments/${judgment.id}/deadlines`, { data, has_more: false });
}
