import { AppError, type EnforcementPosture, type judgmentOperations, type OperationInput } from "@crs/contract";
import { findEnforcementPostureRefusal, isStayInEffect } from "@crs/core";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../audit";
import type { WriteContext } from "../context";
import { lockJudgmentForWrite } from "./load-judgment";
import { deriveAuthorityOfMatter } from "./matter-authority";
import { presentEnforcementPosture, reviewStateOf } from "./present-judgment";

/**
 * Replaces the judgment's one enforcement posture. An enforcement write: refused under a stay on the
 * judgment (409 stay_in_effect), then on a matter without granted authority (409
 * authority_required). The new posture needs a reviewer: the judgment's review goes back to pending.
 */
export async function setEnforcementPosture(
  write: WriteContext,
  { params, body }: OperationInput<typeof judgmentOperations.enforcement>,
): Promise<EnforcementPosture> {
  const { tx, actor } = write;
  const { matter, judgment } = await lockJudgmentForWrite(tx, actor, params.judgment_id);
  const stayInEffect = isStayInEffect({
    appeal_stay_status: judgment.appealStayStatus,
    bankruptcy_status: judgment.bankruptcyStatus,
  });
  const authority = await deriveAuthorityOfMatter(tx, actor, matter.id);
  const refusal = findEnforcementPostureRefusal({
    judgment_stay_in_effect: stayInEffect,
    authority_granted: authority.granted,
  });
  if (refusal === "stay_in_effect") {
    throw new AppError("stay_in_effect", {
      message: `Judgment '${judgment.id}' is stayed (appeal_stay_status ${judgment.appealStayStatus}, bankruptcy_status ${judgment.bankruptcyStatus}): no enforcement posture may be set while the stay is in effect.`,
      param: "judgment_id",
      details: { appeal_stay_status: judgment.appealStayStatus, bankruptcy_status: judgment.bankruptcyStatus },
    });
  }
  if (refusal === "authority_required") {
    throw new AppError("authority_required", {
      message: `Matter '${matter.id}' has no granted authority: validate one of its judgments as ready (with no stay), or ask an operator to grant it.`,
      param: "judgment_id",
      details: { authority },
    });
  }

  const now = write.clock();
  const fields = {
    matterId: matter.id,
    strategy: body.strategy ?? null,
    venues: body.venues ?? [],
    priorities: body.priorities ?? [],
    notes: body.notes ?? null,
    ...writeStamp(actor, now),
  };
  const e = schema.enforcementPostures;
  const [posture] = await tx
    .insert(e)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      judgmentId: judgment.id,
      createdAt: now,
      ...fields,
    })
    .onConflictDoUpdate({ target: [e.organizationId, e.judgmentId], set: fields })
    .returning();
  if (!posture) throw new Error("enforcement posture upsert returned nothing");
  // The previous review's notes were about the posture this one replaces; the reviewer stays assigned.
  const [reviewed] = await tx
    .update(schema.judgments)
    .set({ reviewStatus: "pending", reviewNotes: "", ...writeStamp(actor, now) })
    .where(tenantRow(schema.judgments, actor, judgment.id))
    .returning();
  if (!reviewed) throw new Error("judgment review update returned nothing");
  const presented = presentEnforcementPosture(posture, reviewed);
  write.recordEvent({
    type: "judgment.enforcement_set",
    idField: "judgment_id",
    resourceId: judgment.id,
    object: presented,
    matterId: matter.id,
    extra: { review_state: reviewStateOf(reviewed) },
  });
  return presented;
}
