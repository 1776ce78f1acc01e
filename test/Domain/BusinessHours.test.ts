/**
 * Business-hours maths against instants worked out by hand: weekends, holidays, intervals that
 * start outside the hours, and both kinds of DST change (a skipped hour, a repeated hour) in
 * Europe/Berlin and America/New_York.
 */
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import {
  addBusinessTime,
  BusinessHours,
  businessTimeBetween,
  instantOfWall,
  normalize
} from "../../src/Domain/BusinessHours.ts"

const hour = 3_600_000
const minute = 60_000
const at = (iso: string) => Date.parse(iso)
const iso = (millis: number) => new Date(millis).toISOString()

const nineToFive = [{ start: "09:00", end: "17:00" }]
const weekdays = { monday: nineToFive, tuesday: nineToFive, wednesday: nineToFive, thursday: nineToFive, friday: nineToFive }

const berlin: BusinessHours = { time_zone: "Europe/Berlin", weekly: weekdays, holidays: ["2026-12-25", "2026-12-26"] }
// Thanksgiving 2026 is Thursday 26 November
const newYork: BusinessHours = { time_zone: "America/New_York", weekly: weekdays, holidays: ["2026-11-26"] }
/** Sunday night shifts that straddle the DST changes, to see the changed hour itself. */
const sundayNights = (zone: string): BusinessHours => ({
  time_zone: zone,
  weekly: { sunday: [{ start: "01:00", end: "04:00" }] },
  holidays: []
})

describe("addBusinessTime", () => {
  it("carries what is left on Friday over the weekend (Berlin, CET = UTC+1)", () => {
    // Friday 27 Nov 15:00 CET: 2 h left that day, 2 h on Monday from 09:00 CET (08:00Z)
    expect(iso(addBusinessTime(berlin, at("2026-11-27T14:00:00Z"), 4 * hour))).toBe("2026-11-30T10:00:00.000Z")
  })

  it("skips holidays as well as the weekend", () => {
    // Thursday 24 Dec 16:00 CET: 1 h; Friday 25 and Saturday 26 are holidays, Sunday is closed;
    // Monday 28 Dec 09:00 CET + 2 h = 11:00 CET
    expect(iso(addBusinessTime(berlin, at("2026-12-24T15:00:00Z"), 3 * hour))).toBe("2026-12-28T10:00:00.000Z")
    // Thanksgiving in New York: Wednesday 25 Nov 16:30 EST (21:30Z) + 8 h = 0.5 h Wednesday,
    // nothing on Thursday, 7.5 h on Friday from 09:00 EST: 16:30 EST = 21:30Z
    expect(iso(addBusinessTime(newYork, at("2026-11-25T21:30:00Z"), 8 * hour))).toBe("2026-11-27T21:30:00.000Z")
  })

  it("starts at the next opening when the interval begins outside the hours", () => {
    // Saturday noon: Monday 09:00 CET + 1 h
    expect(iso(addBusinessTime(berlin, at("2026-11-28T11:00:00Z"), hour))).toBe("2026-11-30T09:00:00.000Z")
    // Monday 07:00 CET, before opening: 09:30 CET
    expect(iso(addBusinessTime(berlin, at("2026-11-30T06:00:00Z"), 30 * minute))).toBe("2026-11-30T08:30:00.000Z")
    // Friday 18:00 EST, after closing: Monday 09:00 EST + 1 h = 15:00Z
    expect(iso(addBusinessTime(newYork, at("2026-11-27T23:00:00Z"), hour))).toBe("2026-11-30T15:00:00.000Z")
  })

  it("falls due at closing time when the time runs out exactly then", () => {
    expect(iso(addBusinessTime(berlin, at("2026-11-27T15:00:00Z"), hour))).toBe("2026-11-27T16:00:00.000Z")
  })

  it("adds nothing for no time", () => {
    expect(addBusinessTime(berlin, at("2026-11-28T11:00:00Z"), 0)).toBe(at("2026-11-28T11:00:00Z"))
  })

  it("crosses the spring-forward weekend at the new offset", () => {
    // Berlin goes to CEST on Sunday 29 March 2026: Friday 16:00 CET (15:00Z) + 2 h is Monday
    // 10:00 CEST, which is 08:00Z
    expect(iso(addBusinessTime(berlin, at("2026-03-27T15:00:00Z"), 2 * hour))).toBe("2026-03-30T08:00:00.000Z")
    // New York goes to EDT on Sunday 8 March 2026: Friday 16:00 EST (21:00Z) + 2 h is Monday
    // 10:00 EDT, 14:00Z
    expect(iso(addBusinessTime(newYork, at("2026-03-06T21:00:00Z"), 2 * hour))).toBe("2026-03-09T14:00:00.000Z")
  })

  it("crosses the fall-back weekend at the new offset", () => {
    // Berlin back to CET on Sunday 25 October 2026: Friday 16:00 CEST (14:00Z) + 2 h is Monday
    // 10:00 CET, 09:00Z
    expect(iso(addBusinessTime(berlin, at("2026-10-23T14:00:00Z"), 2 * hour))).toBe("2026-10-26T09:00:00.000Z")
    // New York back to EST on Sunday 1 November 2026: Friday 16:00 EDT (20:00Z) + 2 h is
    // Monday 10:00 EST, 15:00Z
    expect(iso(addBusinessTime(newYork, at("2026-10-30T20:00:00Z"), 2 * hour))).toBe("2026-11-02T15:00:00.000Z")
  })

  it("counts the skipped hour as no time and the repeated hour twice", () => {
    // 01:00-04:00 on the night Berlin skips 02:00-03:00 lasts 2 real hours: 00:00Z to 02:00Z
    const spring = sundayNights("Europe/Berlin")
    expect(iso(addBusinessTime(spring, at("2026-03-28T12:00:00Z"), 2 * hour))).toBe("2026-03-29T02:00:00.000Z")
    expect(businessTimeBetween(spring, at("2026-03-28T12:00:00Z"), at("2026-03-29T12:00:00Z"))).toBe(2 * hour)
    // on the night it repeats 02:00-03:00 it lasts 4: 01:00 CEST (23:00Z) to 04:00 CET (03:00Z)
    const autumn = sundayNights("Europe/Berlin")
    expect(iso(addBusinessTime(autumn, at("2026-10-24T12:00:00Z"), 4 * hour))).toBe("2026-10-25T03:00:00.000Z")
    expect(businessTimeBetween(autumn, at("2026-10-24T12:00:00Z"), at("2026-10-25T12:00:00Z"))).toBe(4 * hour)
    // New York skips 02:00-03:00 on 8 March: 01:00 EST (06:00Z) to 04:00 EDT (08:00Z)
    const newYorkNights = sundayNights("America/New_York")
    expect(businessTimeBetween(newYorkNights, at("2026-03-07T12:00:00Z"), at("2026-03-08T12:00:00Z"))).toBe(2 * hour)
    expect(iso(addBusinessTime(newYorkNights, at("2026-03-07T12:00:00Z"), 90 * minute))).toBe("2026-03-08T07:30:00.000Z")
    // and repeats 01:00-02:00 on 1 November: 01:00 EDT (05:00Z) to 04:00 EST (09:00Z)
    expect(businessTimeBetween(newYorkNights, at("2026-10-31T12:00:00Z"), at("2026-11-01T12:00:00Z"))).toBe(4 * hour)
  })

  it("reads a wall time in the gap as the moment the clocks jumped, a repeated one as its first showing", () => {
    expect(iso(instantOfWall("Europe/Berlin", at("2026-03-29T02:30:00Z")))).toBe("2026-03-29T01:00:00.000Z")
    expect(iso(instantOfWall("Europe/Berlin", at("2026-10-25T02:30:00Z")))).toBe("2026-10-25T00:30:00.000Z")
    expect(iso(instantOfWall("America/New_York", at("2026-11-01T01:30:00Z")))).toBe("2026-11-01T05:30:00.000Z")
    // a period that starts in the gap counts what the wall showed of it: 03:00-03:30 CEST
    const inGap: BusinessHours = { time_zone: "Europe/Berlin", weekly: { sunday: [{ start: "02:30", end: "03:30" }] }, holidays: [] }
    expect(businessTimeBetween(inGap, at("2026-03-28T12:00:00Z"), at("2026-03-29T12:00:00Z"))).toBe(30 * minute)
  })

  it("takes a whole year of targets in business hours", () => {
    // 525,600 minutes at 40 hours a week is about four years and two months of weeks
    const due = addBusinessTime(berlin, at("2026-11-27T14:00:00Z"), 525_600 * minute)
    expect(businessTimeBetween(berlin, at("2026-11-27T14:00:00Z"), due)).toBe(525_600 * minute)
  })
})

describe("businessTimeBetween", () => {
  it("counts only the hours inside the schedule", () => {
    // Friday 15:00 CET to Monday 11:00 CET: 2 h + 2 h
    expect(businessTimeBetween(berlin, at("2026-11-27T14:00:00Z"), at("2026-11-30T10:00:00Z"))).toBe(4 * hour)
    // a holiday and a weekend count nothing
    expect(businessTimeBetween(berlin, at("2026-12-25T00:00:00Z"), at("2026-12-27T23:00:00Z"))).toBe(0)
    // a whole week: five days of eight hours
    expect(businessTimeBetween(newYork, at("2026-11-30T05:00:00Z"), at("2026-12-07T05:00:00Z"))).toBe(40 * hour)
  })

  it("is zero when the end is not after the start", () => {
    expect(businessTimeBetween(berlin, at("2026-11-30T10:00:00Z"), at("2026-11-27T14:00:00Z"))).toBe(0)
    expect(businessTimeBetween(berlin, at("2026-11-30T10:00:00Z"), at("2026-11-30T10:00:00Z"))).toBe(0)
  })

  it("undoes addBusinessTime, from any start", () => {
    const starts = ["2026-11-27T14:00:00Z", "2026-11-28T11:00:00Z", "2026-03-27T15:00:00Z", "2026-10-23T22:15:00Z"]
    for (const start of starts) {
      for (const millis of [1, 7 * minute, 3 * hour, 8 * hour, 41 * hour + 17 * minute]) {
        for (const hours of [berlin, newYork]) {
          const due = addBusinessTime(hours, at(start), millis)
          expect(businessTimeBetween(hours, at(start), due), `${hours.time_zone} ${start} + ${millis}`).toBe(millis)
        }
      }
    }
  })
})

describe("the schedule as input", () => {
  const decode = Schema.decodeUnknownResult(BusinessHours)
  const problem = (input: unknown) => {
    const result = decode(input)
    return result._tag === "Failure" ? String(result.failure) : undefined
  }

  it("takes a weekly schedule in an IANA zone with holidays", () => {
    expect(problem({ time_zone: "America/New_York", weekly: weekdays, holidays: ["2026-11-26"] })).toBeUndefined()
    expect(problem({ time_zone: "UTC", weekly: { saturday: [{ start: "00:00", end: "24:00" }] }, holidays: [] }))
      .toBeUndefined()
  })

  it("refuses what cannot be measured in, naming the field", () => {
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [{ time_zone: "Mars/Olympus", weekly: weekdays, holidays: [] }, "time_zone must be an IANA time zone, e.g. Europe/Berlin"],
      [{ time_zone: "", weekly: weekdays, holidays: [] }, "time_zone must be an IANA time zone"],
      [{ time_zone: "Europe/Berlin", weekly: {}, holidays: [] }, "weekly must have hours on at least one day"],
      [{ time_zone: "Europe/Berlin", weekly: { monday: [] }, holidays: [] }, "weekly must have hours on at least one day"],
      [{ time_zone: "Europe/Berlin", weekly: { monday: [{ start: "17:00", end: "09:00" }] }, holidays: [] }, "weekly.monday[] start must be before end"],
      [{ time_zone: "Europe/Berlin", weekly: { monday: [{ start: "09:00", end: "09:00" }] }, holidays: [] }, "weekly.monday[] start must be before end"],
      [{ time_zone: "Europe/Berlin", weekly: { friday: [{ start: "9am", end: "17:00" }] }, holidays: [] }, "weekly.friday[].start must be a time HH:MM"],
      [{ time_zone: "Europe/Berlin", weekly: { friday: [{ start: "09:00", end: "24:30" }] }, holidays: [] }, "weekly.friday[].end must be a time HH:MM"],
      [
        { time_zone: "Europe/Berlin", weekly: { monday: [{ start: "09:00", end: "13:00" }, { start: "12:00", end: "17:00" }] }, holidays: [] },
        "weekly.monday periods must not overlap"
      ],
      [{ time_zone: "Europe/Berlin", weekly: weekdays, holidays: ["2026-02-30"] }, "holidays[] must be a date YYYY-MM-DD"],
      [{ time_zone: "Europe/Berlin", weekly: weekdays, holidays: ["25.12.2026"] }, "holidays[] must be a date YYYY-MM-DD"]
    ]
    for (const [input, message] of cases) expect(problem(input), JSON.stringify(input)).toContain(message)
  })

  it("is stored with every day named, periods in order and holidays sorted once", () => {
    expect(normalize({
      time_zone: "Europe/Berlin",
      weekly: { monday: [{ start: "13:00", end: "17:00" }, { start: "09:00", end: "12:00" }] },
      holidays: ["2026-12-26", "2026-12-25", "2026-12-26"]
    })).toEqual({
      time_zone: "Europe/Berlin",
      weekly: {
        monday: [{ start: "09:00", end: "12:00" }, { start: "13:00", end: "17:00" }],
        tuesday: [],
        wednesday: [],
        thursday: [],
        friday: [],
        saturday: [],
        sunday: []
      },
      holidays: ["2026-12-25", "2026-12-26"]
    })
  })
})
