import type { MatterAuthority } from "@crs/contract";
import { deriveMatterAuthority, formatTimestamp, isStayInEffect } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, desc, eq } from "drizzle-orm";

/**
 * Whether the matter has granted authority now: through one of its judgments (a ready latest
 * validation and no stay in effect), or by an operator's grant or revoke, which holds until an
 * operator clears it (core's deriveMatterAuthority).
 */
export async function deriveAuthorityOfMatter(
  db: Queryable,
  tenant: Tenant,
  matterId: string,
): Promise<MatterAuthority> {
  const j = schema.judgments;
  const v = schema.judgmentValidations;
  const d = schema.matterAuthorityDecisions;
  const [judgments, latestValidations, [decision]] = await Promise.all([
    db
      .select({ id: j.id, appeal_stay_status: j.appealStayStatus, bankruptcy_status: j.bankruptcyStatus })
      .from(j)
      .where(and(tenantScope(j, tenant), eq(j.matterId, matterId))),
    db
      .selectDistinctOn([v.judgmentId], { judgmentId: v.judgmentId, ready: v.ready })
      .from(v)
      .where(and(tenantScope(v, tenant), eq(v.matterId, matterId)))
      .orderBy(v.judgmentId, desc(v.id)),
    db
      .select()
      .from(d)
      .where(and(tenantScope(d, tenant), eq(d.matterId, matterId)))
      .orderBy(desc(d.id))
      .limit(1),
  ]);
  const readyOf = new Map(latestValidations.map((row) => [row.judgmentId, row.ready]));
  const operator = decision && decision.decision !== "clear" ? decision.decision : null;
  const authority = deriveMatterAuthority({
    judgments: judgments.map((judgment) => ({
      judgment_id: judgment.id,
      latest_validation_ready: readyOf.get(judgment.id) ?? null,
      stay_in_effect: isStayInEffect(judgment),
    })),
    operator,
  });
  return {
    object: "matter_authority",
    matter_id: matterId,
    granted: authority.granted,
    basis: authority.basis,
    judgment_ids: authority.judgment_ids,
    operator_decision: decision
      ? {
          decision: decision.decision,
          notes: decision.notes,
          decided_at: formatTimestamp(decision.decidedAt),
          actor_id: decision.actorId,
        }
      : null,
  };
}
