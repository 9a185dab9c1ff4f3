import { describe, expect, it } from "vitest";
import {
  type CheckStatus,
  DATA_GATES,
  type JudgmentValidationInput,
  type PartyForValidation,
  VALIDATION_CHECKS,
  type ValidationCheck,
  validateJudgment,
} from "../src/judgment-validation";

const claimant: PartyForValidation = {
  role: "claimant",
  status: "active",
  type: "entity",
  name: "Acme Recovery Fund",
  legal_name: "Acme Recovery Fund LP",
  aliases: [],
};
const debtor: PartyForValidation = {
  role: "debtor",
  status: "active",
  type: "entity",
  name: "Shady Exchange",
  legal_name: "Shady Exchange Ltd",
  aliases: ["ShadyX"],
};

/** A judgment that passes every gate and check as of 2026-07-05. */
function input(overrides: {
  judgment?: Partial<JudgmentValidationInput["judgment"]>;
  parties?: PartyForValidation[];
  options?: JudgmentValidationInput["options"];
  today?: string;
}): JudgmentValidationInput {
  return {
    judgment: {
      status: "active",
      amount_minor: 125_000_00n,
      court: "Superior Court of California",
      case_number: "CGC-24-000001",
      creditor: "Acme Recovery Fund LP",
      debtor: "ShadyX",
      jurisdiction: "California",
      date_entered: "2024-02-29",
      renewal_deadline: null,
      appeal_stay_status: "none",
      bankruptcy_status: "none",
      ...overrides.judgment,
    },
    parties: overrides.parties ?? [claimant, debtor],
    options: overrides.options ?? {},
    today: overrides.today ?? "2026-07-05",
  };
}

function statusOf(result: ReturnType<typeof validateJudgment>, check: ValidationCheck): CheckStatus | undefined {
  return result.checks.find((c) => c.gate === check)?.status;
}

describe("a judgment that meets every rule", () => {
  const result = validateJudgment(input({}));

  it("is ready, needs no review and lists nothing missing", () => {
    expect(result.ready).toBe(true);
    expect(result.review_required).toBe(false);
    expect(result.missing_items).toEqual([]);
    expect(result.issues).toEqual([]);
  });

  it("passes the five gates and the five checks, in the documented order", () => {
    expect(result.gates).toEqual({
      judgment_present: true,
      amount_set: true,
      court_set: true,
      parties_linked: true,
      not_expired: true,
    });
    expect(Object.keys(result.gates)).toEqual([...DATA_GATES]);
    expect(result.gate_results.map((gate) => gate.gate)).toEqual([...DATA_GATES]);
    expect(result.checks.map((check) => [check.gate, check.status])).toEqual(
      VALIDATION_CHECKS.map((check) => [check, "pass"]),
    );
    for (const check of result.checks) {
      expect(check.reasons.length, check.gate).toBeGreaterThan(0);
      expect(check.required_actions, check.gate).toEqual([]);
    }
  });

  it("reports the renewal deadline the not_expired gate used", () => {
    expect(result.renewal).toMatchObject({ date: "2034-02-28", jurisdiction_code: "US-CA" });
  });
});

describe("data gates", () => {
  it("judgment_present fails for every status but active", () => {
    for (const status of ["satisfied", "vacated", "expired", "stayed"] as const) {
      const result = validateJudgment(input({ judgment: { status } }));
      expect(result.gates.judgment_present, status).toBe(false);
      expect(result.missing_items, status).toEqual([
        `judgment status is "${status}"; only an active judgment can be enforced`,
      ]);
      expect(result.ready, status).toBe(false);
    }
  });

  it("amount_set needs an amount above zero", () => {
    expect(validateJudgment(input({ judgment: { amount_minor: 1n } })).gates.amount_set).toBe(true);
    expect(validateJudgment(input({ judgment: { amount_minor: 0n } })).missing_items).toEqual(["judgment amount is 0"]);
    expect(validateJudgment(input({ judgment: { amount_minor: -5n } })).gates.amount_set).toBe(false);
  });

  it("court_set needs both the court and the case number, and names each one missing", () => {
    expect(validateJudgment(input({ judgment: { court: " " } })).missing_items).toEqual(["judgment has no court"]);
    const neither = validateJudgment(input({ judgment: { court: null, case_number: "" } }));
    expect(neither.gates.court_set).toBe(false);
    expect(neither.missing_items).toEqual(["judgment has no court", "judgment has no case number"]);
    expect(neither.gate_results.find((gate) => gate.gate === "court_set")?.required_actions).toHaveLength(2);
  });

  describe("parties_linked", () => {
    it("links the creditor and debtor through the name, legal name or alias, ignoring case and spacing", () => {
      const result = validateJudgment(
        input({ judgment: { creditor: "  acme recovery FUND ", debtor: "SHADY EXCHANGE LTD" } }),
      );
      expect(result.gates.parties_linked).toBe(true);
    });

    it("fails when the matter has no debtor or no claimant party", () => {
      expect(validateJudgment(input({ parties: [claimant] })).missing_items).toEqual([
        "the matter has no active debtor party",
      ]);
      expect(validateJudgment(input({ parties: [debtor] })).missing_items).toEqual([
        "the matter has no active claimant party",
      ]);
    });

    it("does not count an inactive party", () => {
      const result = validateJudgment(input({ parties: [claimant, { ...debtor, status: "inactive" }] }));
      expect(result.gates.parties_linked).toBe(false);
      expect(result.missing_items).toEqual(["the matter has no active debtor party"]);
    });

    it("fails when the judgment's creditor or debtor matches no party of that role", () => {
      const result = validateJudgment(input({ judgment: { creditor: "Someone Else", debtor: "Acme Recovery Fund" } }));
      expect(result.gates.parties_linked).toBe(false);
      expect(result.missing_items).toEqual([
        `judgment debtor "Acme Recovery Fund" matches no active debtor's name, legal name or alias`,
        `judgment creditor "Someone Else" matches no active claimant's name, legal name or alias`,
      ]);
      const gate = result.gate_results.find((g) => g.gate === "parties_linked");
      expect(gate?.required_actions).toEqual([
        `add "Acme Recovery Fund" as the debtor's legal name or an alias, or correct the judgment's debtor`,
        `add "Someone Else" as the claimant's legal name or an alias, or correct the judgment's creditor`,
      ]);
    });

    it("fails when the judgment names no creditor", () => {
      expect(validateJudgment(input({ judgment: { creditor: null } })).missing_items).toEqual([
        "judgment has no creditor name",
      ]);
    });

    it("does not strip corporate designators to force a link", () => {
      expect(validateJudgment(input({ judgment: { debtor: "Shady Exchange LLC" } })).gates.parties_linked).toBe(false);
    });
  });

  describe("not_expired", () => {
    it("passes on the renewal date itself and fails the day after", () => {
      expect(validateJudgment(input({ today: "2034-02-27" })).gates.not_expired).toBe(true);
      expect(validateJudgment(input({ today: "2034-02-28" })).gates.not_expired).toBe(true);
      const after = validateJudgment(input({ today: "2034-03-01" }));
      expect(after.gates.not_expired).toBe(false);
      expect(after.missing_items).toEqual(["renewal deadline 2034-02-28 has passed"]);
    });

    it("judges a recorded renewal_deadline rather than the computed one", () => {
      const renewed = validateJudgment(input({ judgment: { renewal_deadline: "2044-02-29" }, today: "2040-01-01" }));
      expect(renewed.gates.not_expired).toBe(true);
      const lapsed = validateJudgment(input({ judgment: { renewal_deadline: "2026-07-04" } }));
      expect(lapsed.gates.not_expired).toBe(false);
    });

    it("uses the jurisdiction's life: an Illinois judgment lapses after 7 years", () => {
      const illinois = input({ judgment: { jurisdiction: "N.D. Ill.", date_entered: "2019-07-04" } });
      expect(validateJudgment(illinois).gates.not_expired).toBe(false);
    });
  });
});

describe("authority check", () => {
  it("fails when any data gate fails, naming the gates and their actions", () => {
    const result = validateJudgment(input({ judgment: { amount_minor: 0n, court: null } }));
    const authority = result.checks.find((check) => check.gate === "authority");
    expect(authority).toEqual({
      gate: "authority",
      status: "fail",
      reasons: ["data gates failing: amount_set, court_set"],
      required_actions: ["correct the judgment amount: it must be greater than 0", "record the court that entered it"],
    });
  });

  it("does not repeat the gates' items in missing_items", () => {
    const result = validateJudgment(input({ judgment: { amount_minor: 0n } }));
    expect(result.missing_items).toEqual(["judgment amount is 0"]);
    expect(result.issues.map((issue) => issue.source)).toEqual(["amount_set"]);
  });

  it("asks for review when the judgment's life rests on the 10-year default", () => {
    const result = validateJudgment(input({ judgment: { jurisdiction: "Court of Narnia" } }));
    expect(statusOf(result, "authority")).toBe("review");
    expect(result.ready).toBe(true);
    expect(result.review_required).toBe(true);
    expect(result.issues).toEqual([
      expect.objectContaining({ code: "judgment_life_unknown", severity: "review", source: "authority" }),
    ]);
  });

  it("needs no review for an unknown jurisdiction once a renewal_deadline is recorded", () => {
    const result = validateJudgment(
      input({ judgment: { jurisdiction: "Court of Narnia", renewal_deadline: "2030-01-01" } }),
    );
    expect(statusOf(result, "authority")).toBe("pass");
  });
});

describe("stay_appeal check", () => {
  it("fails while an appeal stay is in effect", () => {
    const result = validateJudgment(input({ judgment: { appeal_stay_status: "stayed" } }));
    expect(statusOf(result, "stay_appeal")).toBe("fail");
    expect(result.ready).toBe(false);
    expect(result.gates).toMatchObject({ judgment_present: true, parties_linked: true });
    expect(result.missing_items).toEqual(["an appeal stay of enforcement is in effect"]);
  });

  it("asks for review while an appeal is pending", () => {
    const result = validateJudgment(input({ judgment: { appeal_stay_status: "appeal_pending" } }));
    expect(statusOf(result, "stay_appeal")).toBe("review");
    expect(result.ready).toBe(true);
  });

  it("asks for review when the caller knows of an appeal or stay the record does not show", () => {
    expect(statusOf(validateJudgment(input({ options: { appeal_stay_known: true } })), "stay_appeal")).toBe("review");
    expect(statusOf(validateJudgment(input({ options: { appeal_stay_known: false } })), "stay_appeal")).toBe("pass");
  });
});

describe("bankruptcy check", () => {
  it("fails under the automatic stay, whatever the caller says", () => {
    for (const bankruptcy_known of [true, false, undefined]) {
      const result = validateJudgment(
        input({ judgment: { bankruptcy_status: "automatic_stay" }, options: { bankruptcy_known } }),
      );
      expect(statusOf(result, "bankruptcy")).toBe("fail");
      expect(result.ready).toBe(false);
    }
  });

  it("asks for review on a filing or a discharge", () => {
    for (const bankruptcy_status of ["filed", "discharged"] as const) {
      const result = validateJudgment(input({ judgment: { bankruptcy_status } }));
      expect(statusOf(result, "bankruptcy"), bankruptcy_status).toBe("review");
      expect(result.ready, bankruptcy_status).toBe(true);
    }
  });

  it("asks for review when the caller knows of a bankruptcy the record does not show", () => {
    const result = validateJudgment(input({ options: { bankruptcy_known: true } }));
    expect(statusOf(result, "bankruptcy")).toBe("review");
    expect(result.checks.find((check) => check.gate === "bankruptcy")?.required_actions).toEqual([
      "PATCH bankruptcy_status to filed, automatic_stay or discharged, or confirm that none applies",
    ]);
  });
});

describe("consumer_commercial check", () => {
  it("asks for review when the debt is consumer debt", () => {
    expect(statusOf(validateJudgment(input({ options: { consumer_debt: true } })), "consumer_commercial")).toBe(
      "review",
    );
  });

  it("passes when the caller says the debt is commercial", () => {
    const individual = { ...debtor, type: "individual" as const };
    const result = validateJudgment(input({ parties: [claimant, individual], options: { consumer_debt: false } }));
    expect(statusOf(result, "consumer_commercial")).toBe("pass");
  });

  it("asks for review when the caller is silent and the debtor is an individual", () => {
    const individual = { ...debtor, type: "individual" as const };
    const result = validateJudgment(input({ parties: [claimant, individual] }));
    expect(statusOf(result, "consumer_commercial")).toBe("review");
    expect(result.issues[0]?.code).toBe("consumer_status_unknown");
  });

  it("passes, as commercial, when the caller is silent and the debtor is an entity", () => {
    const check = validateJudgment(input({})).checks.find((c) => c.gate === "consumer_commercial");
    expect(check?.status).toBe("pass");
    expect(check?.reasons[0]).toContain("treated as commercial");
  });
});

describe("required_documents check", () => {
  it("passes when no document was asked for, and ignores the names of the five checks", () => {
    expect(statusOf(validateJudgment(input({ options: { checks: [] } })), "required_documents")).toBe("pass");
    expect(
      statusOf(validateJudgment(input({ options: { checks: ["authority", "bankruptcy"] } })), "required_documents"),
    ).toBe("pass");
  });

  it("puts each requested document to review, once", () => {
    const result = validateJudgment(
      input({ options: { checks: ["certified_judgment", "writ_of_execution", "certified_judgment"] } }),
    );
    const check = result.checks.find((c) => c.gate === "required_documents");
    expect(check?.status).toBe("review");
    expect(check?.required_actions).toEqual([
      "confirm a certified copy of the judgment is on file",
      "confirm a writ of execution is on file",
    ]);
    expect(result.ready).toBe(true);
  });

  it("fails for a name that is no known document check", () => {
    const result = validateJudgment(input({ options: { checks: ["notarized_vibes"] } }));
    expect(statusOf(result, "required_documents")).toBe("fail");
    expect(result.ready).toBe(false);
    expect(result.missing_items).toEqual(['requested check "notarized_vibes" is not a known document check']);
  });
});

describe("ready and review_required together", () => {
  it("ready without review", () => {
    expect(validateJudgment(input({}))).toMatchObject({ ready: true, review_required: false });
  });

  it("ready with review: review never blocks readiness", () => {
    expect(validateJudgment(input({ options: { consumer_debt: true } }))).toMatchObject({
      ready: true,
      review_required: true,
    });
  });

  it("not ready without review", () => {
    expect(validateJudgment(input({ judgment: { case_number: null } }))).toMatchObject({
      ready: false,
      review_required: false,
    });
  });

  it("not ready with review", () => {
    const result = validateJudgment(
      input({ judgment: { bankruptcy_status: "automatic_stay", appeal_stay_status: "appeal_pending" } }),
    );
    expect(result).toMatchObject({ ready: false, review_required: true });
    expect(result.missing_items).toEqual(["the debtor's bankruptcy automatic stay is in effect"]);
  });
});

describe("every problem is named", () => {
  it("gives every failing gate and every non-passing check reasons and required actions", () => {
    const result = validateJudgment(
      input({
        judgment: {
          status: "expired",
          amount_minor: 0n,
          court: null,
          creditor: "Nobody",
          appeal_stay_status: "stayed",
          bankruptcy_status: "filed",
          renewal_deadline: "2020-01-01",
        },
        options: { consumer_debt: true, checks: ["proof_of_service", "bogus"] },
      }),
    );
    for (const gate of result.gate_results.filter((g) => !g.passed)) {
      expect(gate.reasons.length, gate.gate).toBeGreaterThan(0);
      expect(gate.required_actions.length, gate.gate).toBeGreaterThan(0);
    }
    for (const check of result.checks.filter((c) => c.status !== "pass")) {
      expect(check.reasons.length, check.gate).toBeGreaterThan(0);
      expect(check.required_actions.length, check.gate).toBeGreaterThan(0);
    }
    expect(result.gate_results.filter((g) => !g.passed).map((g) => g.gate)).toEqual([
      "judgment_present",
      "amount_set",
      "court_set",
      "parties_linked",
      "not_expired",
    ]);
    expect(result.checks.map((c) => c.status)).toEqual(["fail", "fail", "review", "review", "fail"]);
    expect(result.missing_items).toHaveLength(result.issues.filter((issue) => issue.severity === "blocking").length);
    expect(result.missing_items).toContain("an appeal stay of enforcement is in effect");
  });

  it("refuses an invalid today", () => {
    expect(() => validateJudgment(input({ today: "2026-02-30" }))).toThrow(RangeError);
  });
});
