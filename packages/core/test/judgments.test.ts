import { describe, expect, it } from "vitest";
import {
  APPEAL_STAY_STATUSES,
  BANKRUPTCY_STATUSES,
  findCoreFieldsInPatch,
  findMissingIntakeFields,
  isStayInEffect,
  JUDGMENT_INTAKE_FIELDS,
  JUDGMENT_LIFECYCLE_FIELDS,
  JUDGMENT_STATUSES,
} from "../src/judgments";

describe("judgment enums and field lists", () => {
  it("lists the documented statuses and lifecycle values", () => {
    expect(JUDGMENT_STATUSES).toEqual(["active", "satisfied", "vacated", "expired", "stayed"]);
    expect(APPEAL_STAY_STATUSES).toEqual(["none", "appeal_pending", "stayed"]);
    expect(BANKRUPTCY_STATUSES).toEqual(["none", "filed", "automatic_stay", "discharged"]);
  });

  it("keeps the eight core fields and the lifecycle fields apart", () => {
    expect(JUDGMENT_INTAKE_FIELDS).toHaveLength(8);
    expect(JUDGMENT_LIFECYCLE_FIELDS).toEqual([
      "status",
      "appeal_stay_status",
      "bankruptcy_status",
      "renewal_deadline",
      "review_state",
    ]);
    const core: readonly string[] = JUDGMENT_INTAKE_FIELDS;
    expect(JUDGMENT_LIFECYCLE_FIELDS.filter((field) => core.includes(field))).toEqual([]);
  });
});

describe("findMissingIntakeFields", () => {
  const complete = {
    matter_id: "matter_1",
    court: "Superior Court of California",
    case_number: "CV-1",
    jurisdiction: "US-CA",
    creditor: "Acme",
    debtor: "Jane Doe",
    amount: 0,
    date_entered: "2024-01-01",
  };

  it("names every one of the eight fields when the body is empty, in the documented order", () => {
    expect(findMissingIntakeFields({})).toEqual([
      "matter_id",
      "court",
      "case_number",
      "jurisdiction",
      "creditor",
      "debtor",
      "amount",
      "date_entered",
    ]);
  });

  it("counts null and blank strings as missing, but not a zero amount", () => {
    expect(findMissingIntakeFields(complete)).toEqual([]);
    expect(findMissingIntakeFields({ ...complete, court: "  ", debtor: null, date_entered: undefined })).toEqual([
      "court",
      "debtor",
      "date_entered",
    ]);
  });
});

describe("findCoreFieldsInPatch", () => {
  it("names each core field a PATCH carries, and nothing for lifecycle fields", () => {
    expect(findCoreFieldsInPatch({ status: "satisfied", court: "X", amount: 5 })).toEqual(["court", "amount"]);
    expect(
      findCoreFieldsInPatch({ status: "stayed", appeal_stay_status: "stayed", renewal_deadline: "2030-01-01" }),
    ).toEqual([]);
  });

  it("ignores a core key explicitly set to undefined but not one set to null", () => {
    expect(findCoreFieldsInPatch({ court: undefined, debtor: null })).toEqual(["debtor"]);
  });
});

describe("isStayInEffect", () => {
  it("is true exactly for an appeal stay or a bankruptcy automatic stay", () => {
    const stayed: string[] = [];
    for (const appeal_stay_status of APPEAL_STAY_STATUSES) {
      for (const bankruptcy_status of BANKRUPTCY_STATUSES) {
        if (isStayInEffect({ appeal_stay_status, bankruptcy_status }))
          stayed.push(`${appeal_stay_status}/${bankruptcy_status}`);
      }
    }
    expect(stayed).toEqual([
      "none/automatic_stay",
      "appeal_pending/automatic_stay",
      "stayed/none",
      "stayed/filed",
      "stayed/automatic_stay",
      "stayed/discharged",
    ]);
  });
});
