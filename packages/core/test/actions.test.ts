import { describe, expect, it } from "vitest";
import {
  ACTION_STATUSES,
  type ActionStatus,
  type ActionTransitionRoute,
  allowedActionMoves,
  checkActionTransition,
  checkActionWritable,
  findActionGateRefusal,
  isFinalActionStatus,
} from "../src/actions";

/** Every move the path allows, and the route that makes it. */
const ALLOWED: readonly [ActionStatus, ActionStatus, ActionTransitionRoute][] = [
  ["open", "in_progress", "update"],
  ["in_progress", "canceled", "update"],
  ["in_progress", "completed", "complete"],
];

describe("action status transitions", () => {
  it("allows exactly open → in_progress → completed | canceled, each through its route", () => {
    for (const from of ACTION_STATUSES) {
      for (const to of ACTION_STATUSES) {
        for (const route of ["update", "complete"] as const) {
          const allowed = ALLOWED.some(([f, t, r]) => f === from && t === to && r === route);
          const noChange = from === to && route === "update" && !isFinalActionStatus(from);
          const check = checkActionTransition(from, to, route);
          expect(check.refused, `${from} → ${to} via ${route}`).toBe(!(allowed || noChange));
        }
      }
    }
  });

  it("refuses completed through an update whatever the status, pointing at the complete operation", () => {
    for (const from of ACTION_STATUSES) {
      expect(checkActionTransition(from, "completed", "update")).toMatchObject({
        refused: true,
        reason: "complete_through_complete",
      });
    }
  });

  it("names the moves allowed from the current status on each route", () => {
    expect(allowedActionMoves("open", "update")).toEqual(["in_progress"]);
    expect(allowedActionMoves("open", "complete")).toEqual([]);
    expect(allowedActionMoves("in_progress", "update")).toEqual(["canceled"]);
    expect(allowedActionMoves("in_progress", "complete")).toEqual(["completed"]);
    expect(checkActionTransition("open", "canceled", "update")).toEqual({
      refused: true,
      reason: "not_allowed",
      allowed: ["in_progress"],
    });
    expect(checkActionTransition("open", "completed", "complete")).toEqual({
      refused: true,
      reason: "not_allowed",
      allowed: [],
    });
  });

  it("treats completed and canceled as final: no move out, not even to themselves", () => {
    for (const final of ["completed", "canceled"] as const) {
      expect(isFinalActionStatus(final)).toBe(true);
      expect(checkActionWritable(final)).toEqual({ refused: true, allowed: [] });
      for (const to of ACTION_STATUSES) {
        expect(checkActionTransition(final, to, "update").refused).toBe(true);
        expect(checkActionTransition(final, to, "complete").refused).toBe(true);
      }
    }
    for (const live of ["open", "in_progress"] as const) {
      expect(isFinalActionStatus(live)).toBe(false);
      expect(checkActionWritable(live)).toEqual({ refused: false });
    }
  });
});

describe("action gates", () => {
  it("refuses under a sanctions hold first, then without authority; passes only with authority and no hold", () => {
    expect(findActionGateRefusal({ sanctions_hold: true, authority_granted: false })).toBe("sanctions_gate");
    expect(findActionGateRefusal({ sanctions_hold: true, authority_granted: true })).toBe("sanctions_gate");
    expect(findActionGateRefusal({ sanctions_hold: false, authority_granted: false })).toBe("authority_required");
    expect(findActionGateRefusal({ sanctions_hold: false, authority_granted: true })).toBeNull();
  });
});
