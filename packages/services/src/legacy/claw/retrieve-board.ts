import type { ClawBoard, clawOperations, OperationInput } from "@crs/contract";
import {
  calendarDateOf,
  deriveClawBlockers,
  isReviewRequired,
  OPEN_ACTION_STATUSES,
  OPEN_ALERT_STATUSES,
  REVIEW_REQUIRED_STATUSES,
} from "@crs/core";
import { schema, tenantScope } from "@crs/db";
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import type { ReadContext } from "../../context";
import { computeJudgmentDeadlines, loadPacketExportsForDeadlines } from "../../judgments/judgment-deadlines";
import { loadMatter } from "../../matters/load-matter";
import { loadExportsByPacket } from "../../packets/load-packet";
import { presentPacket } from "../../packets/present-packet";
import { presentAlert } from "../monitoring/present-monitoring";
import { readGateFacts } from "./campaign-gates";
import { loadCampaign } from "./load-campaign";
import { presentCampaign } from "./present-campaign";

/** At most this many packets and alerts are shown, the most recent first. */
export const BOARD_QUEUE_LIMIT = 100;

/**
 * The campaign's board, read as the record stands now: the campaign, its latest focus ranking and
 * expand leads, the matter's packets awaiting a reviewer, its alerts still to act on, and what blocks
 * the campaign (core's deriveClawBlockers).
 */
export async function retrieveBoard(
  read: ReadContext,
  { params }: OperationInput<typeof clawOperations.board>,
): Promise<ClawBoard> {
  const { db, actor } = read;
  const row = await loadCampaign(db, actor, params.campaign_id);
  const matter = await loadMatter(db, actor, row.matterId);
  const gateFacts = await readGateFacts(db, actor, matter, row.judgmentId);
  const campaign = presentCampaign(row, gateFacts);
  const p = schema.packets;
  const a = schema.alerts;
  const j = schema.judgments;
  const h = schema.sanctionsHits;
  const act = schema.actions;
  const [packets, alerts, judgments, hits, reviewActions] = await Promise.all([
    db
      .select()
      .from(p)
      .where(
        and(
          tenantScope(p, actor),
          eq(p.matterId, matter.id),
          inArray(p.reviewStatus, [...REVIEW_REQUIRED_STATUSES]),
          ne(p.status, "closed"),
        ),
      )
      .orderBy(desc(p.id))
      .limit(BOARD_QUEUE_LIMIT),
    db
      .select()
      .from(a)
      .where(and(tenantScope(a, actor), eq(a.matterId, matter.id), inArray(a.status, [...OPEN_ALERT_STATUSES])))
      .orderBy(desc(a.id))
      .limit(BOARD_QUEUE_LIMIT),
    db
      .select()
      .from(j)
      .where(and(tenantScope(j, actor), eq(j.matterId, matter.id)))
      .orderBy(j.id),
    db
      .select({ hit_id: h.id, matched_value: h.matchedValue })
      .from(h)
      .where(and(tenantScope(h, actor), eq(h.matterId, matter.id), eq(h.status, "open")))
      .orderBy(h.id),
    db
      .select({ action_id: act.id, title: act.title })
      .from(act)
      .where(
        and(
          tenantScope(act, actor),
          eq(act.campaignId, row.id),
          eq(act.reviewRequired, true),
          inArray(act.status, [...OPEN_ACTION_STATUSES]),
        ),
      )
      .orderBy(act.id),
  ]);
  const exports = await loadPacketExportsForDeadlines(
    db,
    actor,
    judgments.map((judgment) => judgment.id),
  );
  const packetExports = await loadExportsByPacket(
    db,
    actor,
    packets.map((packet) => packet.id),
  );
  const today = calendarDateOf(read.clock());
  const campaignJudgment = judgments.find((judgment) => judgment.id === row.judgmentId);
  const blockers = deriveClawBlockers({
    matter_id: matter.id,
    authority_granted: gateFacts.authority_granted,
    open_sanctions_hits: hits,
    judgment: {
      judgment_id: row.judgmentId,
      case_number: campaignJudgment?.caseNumber ?? row.judgmentId,
      stay_in_effect: gateFacts.judgment_stay_in_effect,
    },
    judgments_in_review: judgments
      .filter((judgment) => isReviewRequired(judgment.reviewStatus))
      .map((judgment) => ({ judgment_id: judgment.id, case_number: judgment.caseNumber })),
    actions_in_review: reviewActions,
    deadlines: judgments.flatMap((judgment) =>
      computeJudgmentDeadlines(judgment, matter, today, exports.get(judgment.id) ?? []).map((deadline) => ({
        judgment_id: judgment.id,
        type: deadline.type,
        date: deadline.date,
        status: deadline.status,
      })),
    ),
    today,
  });
  return {
    object: "claw_board",
    campaign,
    focus_queue: row.focus?.ranked_targets ?? [],
    expand_queue: row.expansion?.leads ?? [],
    packet_queue: packets.map((packet) =>
      presentPacket(packet, packetExports.get(packet.id) ?? [], read.publicBaseUrl),
    ),
    alerts: alerts.map(presentAlert),
    blockers,
  };
}
