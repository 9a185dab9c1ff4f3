import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addDays,
  addYears,
  compareDates,
  daysBetween,
  daysInMonth,
  formatCalendarDate,
  isLeapYear,
  parseCalendarDate,
} from "../src/calendar-dates";

/** An independent oracle: the same arithmetic through Date.UTC, valid for years 1000..9999. */
function referenceAddDays(date: string, days: number): string {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day) + days * 86_400_000).toISOString().slice(0, 10);
}

const calendarDates = fc
  .date({ min: new Date(Date.UTC(1000, 0, 1)), max: new Date(Date.UTC(9000, 11, 31)), noInvalidDate: true })
  .map((date) => date.toISOString().slice(0, 10));

describe("leap years and month lengths", () => {
  it("follows the Gregorian rule: every 4th year, except centuries not divisible by 400", () => {
    expect([2024, 2000, 1600, 2400].map(isLeapYear)).toEqual([true, true, true, true]);
    expect([2023, 1900, 2100, 2200].map(isLeapYear)).toEqual([false, false, false, false]);
  });

  it("gives February 29 days in leap years and 28 otherwise", () => {
    expect(daysInMonth(2024, 2)).toBe(29);
    expect(daysInMonth(1900, 2)).toBe(28);
    expect([1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((month) => daysInMonth(2026, month))).toEqual([
      31, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31,
    ]);
  });
});

describe("addYears", () => {
  it("moves 29 February to 28 February when the target year is not a leap year", () => {
    expect(addYears("2024-02-29", 1)).toBe("2025-02-28");
    expect(addYears("2024-02-29", 10)).toBe("2034-02-28");
    expect(addYears("2000-02-29", 100)).toBe("2100-02-28");
  });

  it("keeps 29 February when the target year is a leap year", () => {
    expect(addYears("2024-02-29", 4)).toBe("2028-02-29");
    expect(addYears("2024-02-29", 20)).toBe("2044-02-29");
    expect(addYears("1600-02-29", 400)).toBe("2000-02-29");
  });

  it("keeps month ends and every other day of the month", () => {
    expect(addYears("2023-01-31", 1)).toBe("2024-01-31");
    expect(addYears("2023-04-30", 7)).toBe("2030-04-30");
    expect(addYears("2023-02-28", 1)).toBe("2024-02-28");
    expect(addYears("2023-12-31", 6)).toBe("2029-12-31");
  });

  it("goes backwards for a negative count", () => {
    expect(addYears("2028-02-29", -1)).toBe("2027-02-28");
  });

  it("never changes the month and only ever shortens the day to the month's length", () => {
    fc.assert(
      fc.property(calendarDates, fc.integer({ min: -500, max: 500 }), (date, years) => {
        const result = parseCalendarDate(addYears(date, years));
        const start = parseCalendarDate(date);
        expect(result.year).toBe(start.year + years);
        expect(result.month).toBe(start.month);
        expect(result.day).toBe(Math.min(start.day, daysInMonth(result.year, start.month)));
      }),
    );
  });
});

describe("addDays", () => {
  it("crosses month ends, year ends and leap days exactly", () => {
    expect(addDays("2023-01-31", 30)).toBe("2023-03-02");
    expect(addDays("2024-01-31", 30)).toBe("2024-03-01");
    expect(addDays("2023-12-31", 1)).toBe("2024-01-01");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2023-02-28", 1)).toBe("2023-03-01");
    expect(addDays("1900-02-28", 1)).toBe("1900-03-01");
    expect(addDays("2000-02-28", 1)).toBe("2000-02-29");
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
    expect(addDays("2026-01-01", 90)).toBe("2026-04-01");
  });

  it("agrees with millisecond arithmetic on UTC dates", () => {
    fc.assert(
      fc.property(calendarDates, fc.integer({ min: -200_000, max: 200_000 }), (date, days) => {
        fc.pre(referenceAddDays(date, days) >= "1000-01-01" && referenceAddDays(date, days) <= "9999-12-31");
        expect(addDays(date, days)).toBe(referenceAddDays(date, days));
      }),
    );
  });

  it("is undone by daysBetween", () => {
    fc.assert(
      fc.property(calendarDates, fc.integer({ min: -100_000, max: 100_000 }), (date, days) => {
        fc.pre(referenceAddDays(date, days) >= "1000-01-01");
        expect(daysBetween(date, addDays(date, days))).toBe(days);
      }),
    );
  });

  it("refuses a fractional day count", () => {
    expect(() => addDays("2026-01-01", 1.5)).toThrow(RangeError);
    expect(() => addYears("2026-01-01", Number.NaN)).toThrow(RangeError);
  });
});

describe("parsing and comparing", () => {
  it("refuses anything that is not a real calendar date", () => {
    for (const text of ["2025-02-29", "2026-13-01", "2026-04-31", "2026-1-1", "", "today", "2026-01-01T00:00:00Z"]) {
      expect(() => parseCalendarDate(text), text).toThrow(RangeError);
      expect(() => addDays(text, 1), text).toThrow(RangeError);
    }
  });

  it("round-trips through parse and format", () => {
    fc.assert(
      fc.property(calendarDates, (date) => {
        expect(formatCalendarDate(parseCalendarDate(date))).toBe(date);
      }),
    );
  });

  it("orders dates by time", () => {
    expect(compareDates("2026-01-01", "2026-01-02")).toBe(-1);
    expect(compareDates("2026-01-02", "2026-01-02")).toBe(0);
    expect(compareDates("2027-01-01", "2026-12-31")).toBe(1);
    expect(daysBetween("2024-01-01", "2025-01-01")).toBe(366);
    expect(daysBetween("2025-01-01", "2026-01-01")).toBe(365);
  });
});
