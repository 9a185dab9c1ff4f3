import type { Judgment, JudgmentValidation } from "@crs/contract";
import { calendarDateOf, type IdKind } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantScope } from "@crs/db";
import { and, desc, eq } from "drizzle-orm";
import type { MatterRow } from "../matters/present-matter";
import { computeJudgmentDeadlines, identifyDeadlines, loadPacketExportsForDeadlines } from "./judgment-deadlines";
import { type JudgmentRow, presentJudgment } from "./present-judgment";

/** The judgment's latest stored validation (as answered, current shape), or null before the first. */
export async function loadLatestValidation(
  db: Queryable,
  tenant: Tenant,
  judgmentId: string,
): Promise<JudgmentValidation | null> {
  const v = schema.judgmentValidations;
  const [row] = await db
    .select({ result: v.result })
    .from(v)
    .where(and(tenantScope(v, tenant), eq(v.judgmentId, judgmentId)))
    .orderBy(desc(v.id))
    .limit(1);
  return row ? (row.result as JudgmentValidation) : null;
}

export interface ViewContext {
  tenant: Tenant;
  newId: (kind: IdKind) => string;
  clock: () => Date;
}

/** The whole judgment as GET answers it: latest validation, deadlines as of today, posture, matter, balance. */
export async function viewJudgment(
  db: Queryable,
  context: ViewContext,
  judgment: JudgmentRow,
  matter: MatterRow,
): Promise<Judgment> {
  const now = context.clock();
  const e = schema.enforcementPostures;
  const packetExports = await loadPacketExportsForDeadlines(db, context.tenant, [judgment.id]);
  const [validation, [posture], deadlines] = await Promise.all([
    loadLatestValidation(db, context.tenant, judgment.id),
    db
      .select()
      .from(e)
      .where(and(tenantScope(e, context.tenant), eq(e.judgmentId, judgment.id))),
    identifyDeadlines(
      db,
      { tenant: context.tenant, newId: context.newId, now },
      judgment,
      computeJudgmentDeadlines(judgment, matter, calendarDateOf(now), packetExports.get(judgment.id) ?? []),
    ),
  ]);
  return presentJudgment(judgment, { matter, validation, deadlines, posture: posture ?? null });
}
