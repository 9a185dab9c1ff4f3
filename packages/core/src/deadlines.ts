import { addDays, addYears, compareDates, daysBetween, parseCalendarDate } from "./calendar-dates";
import type { JudgmentStatus } from "./judgments";
import { DEFAULT_JUDGMENT_LIFE_YEARS, resolveJurisdiction } from "./jurisdictions";
import type { MatterStatus } from "./matters";

/** Deadline types of the interface; this module computes `renewal`, `monitoring` and `packet`. */
export const DEADLINE_TYPES = ["renewal", "service", "response", "hearing", "packet", "monitoring"] as const;
export type DeadlineType = (typeof DEADLINE_TYPES)[number];

export const DEADLINE_STATUSES = ["open", "met", "missed"] as const;
export type DeadlineStatus = (typeof DEADLINE_STATUSES)[number];

export const MONITORING_INTERVAL_DAYS = 90;
export const PACKET_RESPONSE_DAYS = 30;

export interface Deadline {
  /** Stable within one judgment: `renewal`, `monitoring:<cycle>`, `packet:<export id>`. */
  key: string;
  type: DeadlineType;
  date: string;
  owner: string | null;
  status: DeadlineStatus;
  /** How the date was computed, in words a reviewer can check. */
  basis: string;
}

export interface RenewalDeadlineInput {
  date_entered: string;
  jurisdiction: string | null;
  /** Set by PATCH (e.g. after counsel renewed the judgment); wins over the computed date. */
  renewal_deadline: string | null;
}

export interface RenewalDeadline {
  date: string;
  basis: string;
  /** `renewal_deadline`: the PATCHed date; `jurisdiction`: the table; `default`: jurisdiction not in the table. */
  source: "renewal_deadline" | "jurisdiction" | "default";
  jurisdiction_code: string | null;
  life_years: number | null;
}

/** The date by which the judgment must be renewed, and why. */
export function computeRenewalDeadline(input: RenewalDeadlineInput): RenewalDeadline {
  parseCalendarDate(input.date_entered);
  if (input.renewal_deadline !== null && input.renewal_deadline !== undefined) {
    parseCalendarDate(input.renewal_deadline);
    return {
      date: input.renewal_deadline,
      basis: `renewal_deadline ${input.renewal_deadline} recorded on the judgment`,
      source: "renewal_deadline",
      jurisdiction_code: null,
      life_years: null,
    };
  }
  const resolution = resolveJurisdiction(input.jurisdiction);
  if (resolution.resolved) {
    const { rule } = resolution;
    const federal = resolution.via === "federal_district" ? "; a federal judgment follows the state's rule" : "";
    return {
      date: addYears(input.date_entered, rule.life_years),
      basis: `date entered ${input.date_entered} + ${rule.life_years} years: ${rule.name} (${rule.code}), ${rule.citation}${federal}`,
      source: "jurisdiction",
      jurisdiction_code: rule.code,
      life_years: rule.life_years,
    };
  }
  const written = input.jurisdiction?.trim() ? JSON.stringify(input.jurisdiction.trim()) : "(none)";
  const why = resolution.reason === "ambiguous" ? "is ambiguous" : "is not in the judgment-life table";
  return {
    date: addYears(input.date_entered, DEFAULT_JUDGMENT_LIFE_YEARS),
    basis: `date entered ${input.date_entered} + ${DEFAULT_JUDGMENT_LIFE_YEARS} years: default judgment life, jurisdiction ${written} ${why}`,
    source: "default",
    jurisdiction_code: null,
    life_years: DEFAULT_JUDGMENT_LIFE_YEARS,
  };
}

/** True once `today` is after the deadline date; the deadline day itself is still in time. */
export function isPastDate(date: string, today: string): boolean {
  return compareDates(today, date) > 0;
}

export interface PacketExportForDeadline {
  export_id: string;
  /** The export's date (UTC), YYYY-MM-DD. */
  exported_on: string;
  /** Whether a response to the exported packet has been recorded. */
  response_received: boolean;
}

export interface DeadlinesInput {
  judgment: RenewalDeadlineInput & {
    status: JudgmentStatus;
    /** The intake date (UTC date of `created_at`): monitoring cycles count from it. */
    intake_date: string;
  };
  matter: { status: MatterStatus; lead_counsel: string | null };
  packet_exports: readonly PacketExportForDeadline[];
  today: string;
}

/**
 * The deadlines of one judgment, computed from recorded facts only, ordered by date then key.
 *
 * - `renewal`: see `computeRenewalDeadline`. `met` once the judgment is `satisfied` or `vacated`
 *   (nothing is left to renew), `missed` when the judgment is `expired` or today is after the
 *   date, otherwise `open`.
 * - `monitoring`: while the matter is `active`, the next 90-day cycle counted from the intake
 *   date that falls on or after today. Only the next one is listed, always `open`: no record says
 *   whether a past review happened, so none is reported met or missed.
 * - `packet`: one per export of a packet bound to the judgment, 30 days after the export. `met`
 *   once a response is recorded, `missed` when today is after the date without one, else `open`.
 */
export function computeDeadlines(input: DeadlinesInput): Deadline[] {
  const { judgment, matter, today } = input;
  parseCalendarDate(today);
  const owner = matter.lead_counsel?.trim() ? matter.lead_counsel.trim() : null;
  const deadlines: Deadline[] = [];

  const renewal = computeRenewalDeadline(judgment);
  deadlines.push({
    key: "renewal",
    type: "renewal",
    date: renewal.date,
    owner,
    status: renewalStatus(judgment.status, renewal.date, today),
    basis: renewal.basis,
  });

  if (matter.status === "active") {
    const elapsed = daysBetween(judgment.intake_date, today);
    const cycle = Math.max(1, Math.ceil(elapsed / MONITORING_INTERVAL_DAYS));
    deadlines.push({
      key: `monitoring:${cycle}`,
      type: "monitoring",
      date: addDays(judgment.intake_date, cycle * MONITORING_INTERVAL_DAYS),
      owner,
      status: "open",
      basis: `intake ${judgment.intake_date} + ${cycle} × ${MONITORING_INTERVAL_DAYS} days: monitoring cycle ${cycle} while the matter is active`,
    });
  }

  for (const packetExport of input.packet_exports) {
    const date = addDays(packetExport.exported_on, PACKET_RESPONSE_DAYS);
    deadlines.push({
      key: `packet:${packetExport.export_id}`,
      type: "packet",
      date,
      owner,
      status: packetExport.response_received ? "met" : isPastDate(date, today) ? "missed" : "open",
      basis: `export ${packetExport.export_id} on ${packetExport.exported_on} + ${PACKET_RESPONSE_DAYS} days for a response`,
    });
  }

  return deadlines.sort((a, b) => compareDates(a.date, b.date) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function renewalStatus(status: JudgmentStatus, date: string, today: string): DeadlineStatus {
  if (status === "satisfied" || status === "vacated") return "met";
  if (status === "expired" || isPastDate(date, today)) return "missed";
  return "open";
}
