import { describe, expect, it } from "vitest";
import {
  computeDeadlines,
  computeRenewalDeadline,
  type Deadline,
  type DeadlinesInput,
  isPastDate,
  MONITORING_INTERVAL_DAYS,
  PACKET_RESPONSE_DAYS,
} from "../src/deadlines";

function deadlinesInput(overrides: {
  judgment?: Partial<DeadlinesInput["judgment"]>;
  matter?: Partial<DeadlinesInput["matter"]>;
  packet_exports?: DeadlinesInput["packet_exports"];
  today?: string;
}): DeadlinesInput {
  return {
    judgment: {
      status: "active",
      date_entered: "2020-03-15",
      jurisdiction: "California",
      renewal_deadline: null,
      intake_date: "2026-01-01",
      ...overrides.judgment,
    },
    matter: { status: "active", lead_counsel: "Dana Counsel", ...overrides.matter },
    packet_exports: overrides.packet_exports ?? [],
    today: overrides.today ?? "2026-01-01",
  };
}

function byType(deadlines: Deadline[], type: Deadline["type"]): Deadline[] {
  return deadlines.filter((deadline) => deadline.type === type);
}

describe("computeRenewalDeadline", () => {
  it("adds the jurisdiction's judgment life to the date entered and cites the statute", () => {
    const renewal = computeRenewalDeadline({
      date_entered: "2020-03-15",
      jurisdiction: "US-CA",
      renewal_deadline: null,
    });
    expect(renewal).toMatchObject({
      date: "2030-03-15",
      source: "jurisdiction",
      jurisdiction_code: "US-CA",
      life_years: 10,
    });
    expect(renewal.basis).toContain("Cal. Code Civ. Proc. § 683.020");
    expect(renewal.basis).toContain("2020-03-15 + 10 years");
  });

  it("uses each statute's own number of years", () => {
    const cases: [string, string][] = [
      ["New York", "2040-03-15"],
      ["Illinois", "2027-03-15"],
      ["Nevada", "2026-03-15"],
      ["England and Wales", "2026-03-15"],
      ["D.C.", "2032-03-15"],
      ["Germany", "2050-03-15"],
    ];
    for (const [jurisdiction, date] of cases) {
      expect(computeRenewalDeadline({ date_entered: "2020-03-15", jurisdiction, renewal_deadline: null }).date).toBe(
        date,
      );
    }
  });

  it("falls back to 10 years for an unknown jurisdiction and says so in the basis", () => {
    const renewal = computeRenewalDeadline({
      date_entered: "2020-03-15",
      jurisdiction: "Superior Court, Maricopa County",
      renewal_deadline: null,
    });
    expect(renewal).toMatchObject({ date: "2030-03-15", source: "default", jurisdiction_code: null, life_years: 10 });
    expect(renewal.basis).toContain("default judgment life");
    expect(renewal.basis).toContain('"Superior Court, Maricopa County" is not in the judgment-life table');
    expect(
      computeRenewalDeadline({ date_entered: "2020-03-15", jurisdiction: "DE", renewal_deadline: null }).basis,
    ).toContain("is ambiguous");
  });

  it("uses the renewal_deadline recorded on the judgment over any computed date", () => {
    expect(
      computeRenewalDeadline({ date_entered: "2020-03-15", jurisdiction: "US-CA", renewal_deadline: "2040-03-01" }),
    ).toMatchObject({ date: "2040-03-01", source: "renewal_deadline", life_years: null });
  });

  it("counts a judgment entered on 29 February to 28 February in a common year, 29 February in a leap year", () => {
    const renewal = (jurisdiction: string, date_entered: string) =>
      computeRenewalDeadline({ date_entered, jurisdiction, renewal_deadline: null }).date;
    expect(renewal("US-CA", "2024-02-29")).toBe("2034-02-28");
    expect(renewal("US-NY", "2024-02-29")).toBe("2044-02-29");
    expect(renewal("US-NV", "2020-02-29")).toBe("2026-02-28");
    expect(renewal("US-IL", "2016-02-29")).toBe("2023-02-28");
    expect(renewal("US-NJ", "2080-02-29")).toBe("2100-02-28");
  });

  it("says when a federal judgment follows its state", () => {
    expect(
      computeRenewalDeadline({ date_entered: "2021-06-30", jurisdiction: "N.D. Ill.", renewal_deadline: null }),
    ).toMatchObject({ date: "2028-06-30", jurisdiction_code: "US-IL" });
    expect(
      computeRenewalDeadline({ date_entered: "2021-06-30", jurisdiction: "N.D. Ill.", renewal_deadline: null }).basis,
    ).toContain("federal judgment follows the state's rule");
  });

  it("refuses dates that are not real calendar dates", () => {
    expect(() =>
      computeRenewalDeadline({ date_entered: "2023-02-29", jurisdiction: "US-CA", renewal_deadline: null }),
    ).toThrow(RangeError);
    expect(() =>
      computeRenewalDeadline({ date_entered: "2023-02-28", jurisdiction: "US-CA", renewal_deadline: "2030-02-30" }),
    ).toThrow(RangeError);
  });
});

describe("renewal deadline status", () => {
  const renewalOn = (today: string, status: DeadlinesInput["judgment"]["status"] = "active") =>
    byType(computeDeadlines(deadlinesInput({ judgment: { status }, today })), "renewal")[0];

  it("is open the day before and on the day itself, missed the day after", () => {
    expect(renewalOn("2030-03-14")).toMatchObject({ date: "2030-03-15", status: "open" });
    expect(renewalOn("2030-03-15")?.status).toBe("open");
    expect(renewalOn("2030-03-16")?.status).toBe("missed");
  });

  it("is met once the judgment is satisfied or vacated, even after the date", () => {
    expect(renewalOn("2031-01-01", "satisfied")?.status).toBe("met");
    expect(renewalOn("2026-01-01", "vacated")?.status).toBe("met");
  });

  it("is missed when the judgment is recorded as expired, even before the date", () => {
    expect(renewalOn("2026-01-01", "expired")?.status).toBe("missed");
  });

  it("stays open for a stayed judgment until its date", () => {
    expect(renewalOn("2026-01-01", "stayed")?.status).toBe("open");
  });

  it("belongs to the matter's lead counsel, or to nobody when there is none", () => {
    expect(renewalOn("2026-01-01")?.owner).toBe("Dana Counsel");
    const none = computeDeadlines(deadlinesInput({ matter: { lead_counsel: "  " } }));
    expect(none.every((deadline) => deadline.owner === null)).toBe(true);
  });
});

describe("monitoring deadline", () => {
  const monitoringOn = (today: string, intake_date = "2026-01-01") =>
    byType(computeDeadlines(deadlinesInput({ judgment: { intake_date }, today })), "monitoring");

  it("is the next 90-day cycle from intake on or after today", () => {
    expect(MONITORING_INTERVAL_DAYS).toBe(90);
    expect(monitoringOn("2026-01-01")).toEqual([
      expect.objectContaining({ key: "monitoring:1", date: "2026-04-01", status: "open" }),
    ]);
    expect(monitoringOn("2026-03-31")[0]).toMatchObject({ key: "monitoring:1", date: "2026-04-01" });
    expect(monitoringOn("2026-04-01")[0]).toMatchObject({ key: "monitoring:1", date: "2026-04-01" });
    expect(monitoringOn("2026-04-02")[0]).toMatchObject({ key: "monitoring:2", date: "2026-06-30" });
  });

  it("counts cycles across a leap day exactly", () => {
    expect(monitoringOn("2024-01-01", "2024-01-01")[0]?.date).toBe("2024-03-31");
    expect(monitoringOn("2023-01-01", "2023-01-01")[0]?.date).toBe("2023-04-01");
  });

  it("starts at the first cycle when today is before intake", () => {
    expect(monitoringOn("2025-12-01")[0]).toMatchObject({ key: "monitoring:1", date: "2026-04-01" });
  });

  it("exists only while the matter is active", () => {
    for (const status of ["on_hold", "closed"] as const) {
      expect(byType(computeDeadlines(deadlinesInput({ matter: { status } })), "monitoring")).toEqual([]);
    }
  });
});

describe("packet response deadlines", () => {
  const exportOn = (exported_on: string, response_received = false) => ({
    export_id: `pex_${exported_on}`,
    exported_on,
    response_received,
  });
  const packetOn = (today: string, packetExport = exportOn("2026-01-31")) =>
    byType(computeDeadlines(deadlinesInput({ packet_exports: [packetExport], today })), "packet")[0];

  it("falls 30 days after the export, across month ends", () => {
    expect(PACKET_RESPONSE_DAYS).toBe(30);
    expect(packetOn("2026-02-01")).toMatchObject({ key: "packet:pex_2026-01-31", date: "2026-03-02" });
    expect(packetOn("2024-02-01", exportOn("2024-01-31"))?.date).toBe("2024-03-01");
  });

  it("is open the day before and on the day, missed the day after without a response", () => {
    expect(packetOn("2026-03-01")?.status).toBe("open");
    expect(packetOn("2026-03-02")?.status).toBe("open");
    expect(packetOn("2026-03-03")?.status).toBe("missed");
  });

  it("is met once a response is recorded, whatever the date", () => {
    expect(packetOn("2026-02-01", exportOn("2026-01-31", true))?.status).toBe("met");
    expect(packetOn("2027-01-01", exportOn("2026-01-31", true))?.status).toBe("met");
  });

  it("lists one deadline per export, each with its own stable key", () => {
    const deadlines = computeDeadlines(
      deadlinesInput({ packet_exports: [exportOn("2026-02-10"), exportOn("2026-01-05")], today: "2026-01-01" }),
    );
    expect(byType(deadlines, "packet").map((deadline) => deadline.key)).toEqual([
      "packet:pex_2026-01-05",
      "packet:pex_2026-02-10",
    ]);
  });
});

describe("computeDeadlines", () => {
  it("orders deadlines by date and gives each a basis", () => {
    const deadlines = computeDeadlines(
      deadlinesInput({ packet_exports: [{ export_id: "pex_1", exported_on: "2026-01-10", response_received: false }] }),
    );
    expect(deadlines.map((deadline) => [deadline.key, deadline.date])).toEqual([
      ["packet:pex_1", "2026-02-09"],
      ["monitoring:1", "2026-04-01"],
      ["renewal", "2030-03-15"],
    ]);
    for (const deadline of deadlines) expect(deadline.basis.length, deadline.key).toBeGreaterThan(0);
  });

  it("gives the same result for the same facts", () => {
    const input = deadlinesInput({
      packet_exports: [{ export_id: "pex_1", exported_on: "2026-01-10", response_received: false }],
    });
    expect(computeDeadlines(input)).toEqual(computeDeadlines(structuredClone(input)));
  });

  it("refuses an invalid today", () => {
    expect(() => computeDeadlines(deadlinesInput({ today: "2026-02-30" }))).toThrow(RangeError);
  });
});

describe("isPastDate", () => {
  it("is false on the day itself", () => {
    expect(isPastDate("2026-05-01", "2026-04-30")).toBe(false);
    expect(isPastDate("2026-05-01", "2026-05-01")).toBe(false);
    expect(isPastDate("2026-05-01", "2026-05-02")).toBe(true);
  });
});
