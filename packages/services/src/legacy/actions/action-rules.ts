import { AppError } from "@crs/contract";
import {
  type ActionStatus,
  type ActionTransitionRoute,
  checkActionTransition,
  checkActionWritable,
  findActionGateRefusal,
} from "@crs/core";
import type { WriteContext } from "../../context";
import { deriveAuthorityOfMatter } from "../../judgments/matter-authority";
import type { MatterRow } from "../../matters/present-matter";
import { recordMatterNote } from "../../matters/record-matter-note";
import type { ActionRow, presentAction } from "./present-action";

const GATE_MESSAGES = {
  sanctions_gate: (matterId: string) =>
    `Matter '${matterId}' has a sanctions hit awaiting review: actions cannot be written until a reviewer clears it.`,
  authority_required: (matterId: string) =>
    `Matter '${matterId}' has no granted authority (a ready validation of one of its judgments with no stay, or an operator's grant): actions cannot be written.`,
};

/**
 * The gates of every action write, under the matter row lock: a sanctions hit awaiting review, then
 * granted authority (the same derivation the packet and enforcement gates use). Never soft-passes.
 */
export async function assertActionGates(write: WriteContext, matter: MatterRow): Promise<void> {
  const authority = await deriveAuthorityOfMatter(write.tx, write.actor, matter.id);
  const refusal = findActionGateRefusal({ sanctions_hold: matter.sanctionsHold, authority_granted: authority.granted });
  if (refusal) throw new AppError(refusal, { message: GATE_MESSAGES[refusal](matter.id), param: "matter_id" });
}

/** 409 naming `status` for any write to a completed or canceled action. */
export function assertActionWritable(action: ActionRow): void {
  if (checkActionWritable(action.status).refused) {
    throw new AppError("conflict", {
      message: `Action '${action.id}' is ${action.status}, which is final: it cannot be changed.`,
      param: "status",
      details: { status: action.status, allowed: [] },
    });
  }
}

/**
 * Refuses a status move off the path: `completed` through a PATCH is 422 (only complete records a
 * completion); any other move not allowed from the current status is 409, with the allowed moves.
 */
export function assertActionTransition(action: ActionRow, to: ActionStatus, route: ActionTransitionRoute): void {
  const check = checkActionTransition(action.status, to, route);
  if (!check.refused) return;
  if (check.reason === "complete_through_complete") {
    const message = `status cannot be set to completed here: complete an action through POST /v1/actions/${action.id}/complete, with completion_notes`;
    throw new AppError("invalid_request", {
      status: 422,
      message: `Invalid status (${message}).`,
      param: "status",
      details: { invalid: [{ param: "status", message }], allowed: check.allowed },
    });
  }
  const allowed = check.allowed.length > 0 ? check.allowed.join(", ") : "none";
  throw new AppError("conflict", {
    message: `Action '${action.id}' is ${action.status}: it cannot move to ${to} (allowed from ${action.status}: ${allowed}).`,
    param: "status",
    details: { status: action.status, requested: to, allowed: check.allowed },
  });
}

export type ActionChange = "created" | "updated" | "assigned" | "completed";

/**
 * The catalog has no action event: every action change appends `matter.updated` on the action's matter,
 * with the change, the action as answered and (for updates) the fields it changed.
 */
export function recordActionEvent(
  write: WriteContext,
  matter: MatterRow,
  change: ActionChange,
  action: ReturnType<typeof presentAction>,
  previous?: Record<string, unknown>,
): void {
  recordMatterNote(write, matter, {
    action_id: action.id,
    action_change: change,
    action,
    ...(previous ? { action_previous_attributes: previous } : {}),
  });
}
