import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calendarDateOf, formatTimestamp, isCalendarDate } from "../src/time";

describe("isCalendarDate", () => {
  it("accepts real dates, including leap days of leap years", () => {
    for (const date of ["2026-01-01", "2026-12-31", "2024-02-29", "2000-02-29", "2026-04-30", "1999-12-31"]) {
      expect(isCalendarDate(date), date).toBe(true);
    }
  });

  it("rejects days that do not exist in their month", () => {
    for (const date of ["2026-02-30", "2025-02-29", "1900-02-29", "2026-04-31", "2026-01-32", "2026-01-00"]) {
      expect(isCalendarDate(date), date).toBe(false);
    }
  });

  it("rejects months outside 01..12", () => {
    expect(isCalendarDate("2026-13-01")).toBe(false);
    expect(isCalendarDate("2026-00-10")).toBe(false);
  });

  it("rejects anything but exactly YYYY-MM-DD", () => {
    for (const text of [
      "",
      "2026-1-01",
      "2026-01-1",
      "26-01-01",
      "2026/01/01",
      "20260101",
      "2026-01-01T00:00:00Z",
      " 2026-01-01",
      "2026-01-01 ",
      "2026-01-01\n",
      "+2026-01-01",
      "2026-0a-01",
    ]) {
      expect(isCalendarDate(text), JSON.stringify(text)).toBe(false);
    }
  });

  it("accepts exactly the dates Date.UTC maps back to the same year, month and day", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(Date.UTC(1000, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
        (date) => {
          expect(isCalendarDate(date.toISOString().slice(0, 10))).toBe(true);
        },
      ),
    );
  });
});

describe("formatTimestamp", () => {
  it("writes ISO 8601 UTC with milliseconds and a Z suffix", () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 6, 5, 20, 33, 57, 5)))).toBe("2026-07-05T20:33:57.005Z");
  });

  it("keeps zero milliseconds", () => {
    expect(formatTimestamp(new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 0)))).toBe("2026-01-01T00:00:00.000Z");
  });

  it("writes UTC whatever offset the date was created with", () => {
    expect(formatTimestamp(new Date("2026-07-05T22:33:57.005+02:00"))).toBe("2026-07-05T20:33:57.005Z");
  });

  it("always has the fixed YYYY-MM-DDTHH:mm:ss.sssZ shape and round-trips through Date", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
        (date) => {
          const text = formatTimestamp(date);
          expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
          expect(new Date(text).getTime()).toBe(date.getTime());
        },
      ),
    );
  });
});

describe("calendarDateOf", () => {
  it("is the UTC date: the last millisecond of a day and the first of the next differ", () => {
    expect(calendarDateOf(new Date("2026-07-05T23:59:59.999Z"))).toBe("2026-07-05");
    expect(calendarDateOf(new Date("2026-07-06T00:00:00.000Z"))).toBe("2026-07-06");
    expect(calendarDateOf(new Date("2026-07-06T01:30:00.000+02:00"))).toBe("2026-07-05");
  });

  it("always gives a real calendar date", () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date(Date.UTC(1970, 0, 1)), max: new Date(Date.UTC(9999, 11, 31)), noInvalidDate: true }),
        (date) => {
          expect(isCalendarDate(calendarDateOf(date))).toBe(true);
        },
      ),
    );
  });
});
