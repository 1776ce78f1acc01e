import { Schema } from "effect"

/**
 * A project's business hours: a weekly schedule of wall-clock periods in an IANA time zone, and
 * holidays (local dates with no hours at all). The functions below measure time in it over epoch
 * milliseconds; a period is as long as the real time between its ends, so on the day a clock goes
 * forward 09:00-17:00 lasts what it lasts on the wall, and 01:00-03:00 one hour less.
 */

export const Weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const
export type Weekday = (typeof Weekdays)[number]

const hhmm = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/
const minutesOf = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

/** Whether `zone` is a time zone this runtime knows by its IANA name. */
export const isTimeZone = (zone: string) => {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** A calendar date that exists (no 30 February). */
export const isDate = (text: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false
  const [y, m, d] = text.split("-").map(Number) as [number, number, number]
  const day = new Date(Date.UTC(y, m - 1, d))
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d
}

const Time = (field: string) =>
  Schema.String.annotate({ message: `${field} must be a time HH:MM` }).check(
    Schema.makeFilter((s: string) => hhmm.test(s) || `${field} must be a time HH:MM (00:00 to 24:00)`)
  )

const PeriodOf = (day: Weekday) =>
  Schema.Struct({
    start: Time(`weekly.${day}[].start`),
    end: Time(`weekly.${day}[].end`)
  }).annotate({ message: `weekly.${day}[] must be an object {start, end}` }).pipe(
    Schema.check(Schema.makeFilter((period) =>
      minutesOf(period.start) < minutesOf(period.end) || `weekly.${day}[] start must be before end`
    ))
  )
export interface Period {
  readonly start: string
  readonly end: string
}

const DayPeriods = (day: Weekday) =>
  Schema.Array(PeriodOf(day)).annotate({ message: `weekly.${day} must be an array of {start, end}` }).pipe(
    Schema.check(
      Schema.makeFilter((periods) => periods.length <= 10 || `weekly.${day} must hold at most 10 periods`),
      Schema.makeFilter((periods) => {
        const sorted = [...periods].sort((a, b) => minutesOf(a.start) - minutesOf(b.start))
        return sorted.every((period, i) => i === 0 || minutesOf(sorted[i - 1]!.end) <= minutesOf(period.start)) ||
          `weekly.${day} periods must not overlap`
      })
    )
  )

export const Weekly = Schema.Struct({
  monday: Schema.optionalKey(DayPeriods("monday")),
  tuesday: Schema.optionalKey(DayPeriods("tuesday")),
  wednesday: Schema.optionalKey(DayPeriods("wednesday")),
  thursday: Schema.optionalKey(DayPeriods("thursday")),
  friday: Schema.optionalKey(DayPeriods("friday")),
  saturday: Schema.optionalKey(DayPeriods("saturday")),
  sunday: Schema.optionalKey(DayPeriods("sunday"))
}).annotate({ message: "weekly must be an object with days monday to sunday" }).pipe(
  Schema.check(Schema.makeFilter((weekly) =>
    Weekdays.some((day) => (weekly[day]?.length ?? 0) > 0) || "weekly must have hours on at least one day"
  ))
)

export const TimeZone = Schema.String.annotate({ message: "time_zone must be an IANA time zone, e.g. Europe/Berlin" }).check(
  Schema.makeFilter((zone: string) => isTimeZone(zone) || "time_zone must be an IANA time zone, e.g. Europe/Berlin")
)

export const Holidays = Schema.Array(
  Schema.String.annotate({ message: "holidays[] must be a date YYYY-MM-DD" }).check(
    Schema.makeFilter((s: string) => isDate(s) || "holidays[] must be a date YYYY-MM-DD")
  )
).annotate({ message: "holidays must be an array of dates YYYY-MM-DD" }).pipe(
  Schema.check(Schema.makeFilter((days) => days.length <= 1000 || "holidays must hold at most 1000 dates"))
)

export const BusinessHours = Schema.Struct({
  time_zone: TimeZone,
  weekly: Weekly,
  holidays: Holidays
}).annotate({ message: "request body must be a JSON object", identifier: "BusinessHours" })
export type BusinessHours = typeof BusinessHours.Type

/** The hours as stored and returned, every day named. */
export const normalize = (hours: BusinessHours): BusinessHours => ({
  time_zone: hours.time_zone,
  weekly: Object.fromEntries(Weekdays.map((day) => [
    day,
    [...(hours.weekly[day] ?? [])].sort((a, b) => minutesOf(a.start) - minutesOf(b.start))
  ])) as BusinessHours["weekly"],
  holidays: [...new Set(hours.holidays)].sort()
})

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterOf = (zone: string) => {
  let formatter = formatters.get(zone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    })
    formatters.set(zone, formatter)
  }
  return formatter
}

interface Wall {
  readonly year: number
  readonly month: number
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
}

const wallAt = (zone: string, instant: number): Wall => {
  const parts: Record<string, number> = {}
  for (const part of formatterOf(zone).formatToParts(instant)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value)
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!
  }
}

/** The zone's offset from UTC at `instant`, in milliseconds (east positive), to the second. */
const offsetAt = (zone: string, instant: number) => {
  const wall = wallAt(zone, instant)
  const whole = instant - (((instant % 1000) + 1000) % 1000)
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) - whole
}

const dayMillis = 86_400_000

/**
 * The instant the wall clock of `zone` first shows `wallMillis` (a local time written as if it
 * were UTC): a time shown twice (the hour repeated when clocks go back) is its first showing; a
 * time never shown (the hour skipped when they go forward) is the moment the clocks jumped past
 * it, so a period that starts or ends in the gap counts only the time the wall really showed.
 */
export const instantOfWall = (zone: string, wallMillis: number) => {
  const before = offsetAt(zone, wallMillis - dayMillis)
  const after = offsetAt(zone, wallMillis + dayMillis)
  const shown = [...new Set([before, after, offsetAt(zone, wallMillis)])]
    .map((offset) => wallMillis - offset)
    .filter((instant) => instant + offsetAt(zone, instant) === wallMillis)
    .sort((a, b) => a - b)
  if (shown[0] !== undefined) return shown[0]
  // in a gap the offset grew from `before` to `after`: the jump lies between these two instants
  let low = wallMillis - after
  let high = wallMillis - before
  while (high - low > 1000) {
    const middle = low + Math.floor((high - low) / 2000) * 1000
    if (offsetAt(zone, middle) === before) low = middle
    else high = middle
  }
  return high
}

/** A local date as days since 1970-01-01 (the date's own count, with no zone in it). */
const epochDayOf = (zone: string, instant: number) => {
  const wall = wallAt(zone, instant)
  return Math.floor(Date.UTC(wall.year, wall.month - 1, wall.day) / dayMillis)
}

const isoDateOf = (epochDay: number) => new Date(epochDay * dayMillis).toISOString().slice(0, 10)

/** Monday first, as `Weekdays` lists them; 1970-01-01 was a Thursday. */
const weekdayOf = (epochDay: number): Weekday => Weekdays[(((epochDay + 3) % 7) + 7) % 7]!

/** The business periods of one local date as instants, in order; none on a holiday. */
const periodsOn = (hours: BusinessHours, holidays: ReadonlySet<string>, epochDay: number) => {
  if (holidays.has(isoDateOf(epochDay))) return []
  const periods = [...(hours.weekly[weekdayOf(epochDay)] ?? [])].sort((a, b) => minutesOf(a.start) - minutesOf(b.start))
  const midnight = epochDay * dayMillis
  return periods
    .map((period) => [
      instantOfWall(hours.time_zone, midnight + minutesOf(period.start) * 60_000),
      instantOfWall(hours.time_zone, midnight + minutesOf(period.end) * 60_000)
    ] as const)
    .filter(([start, end]) => start < end)
}

/**
 * How far ahead to look for business hours before giving up: a schedule with hours on some
 * weekday has them within a week and its holidays, so this only stops a malformed schedule.
 */
const searchDays = 366 * 12

/**
 * The instant at which `millis` of business time have passed since `from`. Time outside the
 * hours does not count, so from Friday 16:00 with 09:00-17:00 on weekdays, two hours fall due on
 * Monday at 10:00; a target that ends exactly at closing time falls due then, not at the next
 * opening.
 */
export const addBusinessTime = (hours: BusinessHours, from: number, millis: number): number => {
  if (millis <= 0) return from
  const holidays = new Set(hours.holidays)
  let remaining = millis
  const first = epochDayOf(hours.time_zone, from)
  for (let day = first - 1; day <= first + searchDays; day++) {
    for (const [start, end] of periodsOn(hours, holidays, day)) {
      if (end <= from) continue
      const begin = Math.max(start, from)
      if (remaining <= end - begin) return begin + remaining
      remaining -= end - begin
    }
  }
  throw new Error("business hours have no periods to measure time in")
}

/** The business time, in milliseconds, between `a` and `b` (0 when `b` is not after `a`). */
export const businessTimeBetween = (hours: BusinessHours, a: number, b: number): number => {
  if (b <= a) return 0
  const holidays = new Set(hours.holidays)
  let total = 0
  const last = epochDayOf(hours.time_zone, b)
  for (let day = epochDayOf(hours.time_zone, a) - 1; day <= last + 1; day++) {
    for (const [start, end] of periodsOn(hours, holidays, day)) {
      const overlap = Math.min(end, b) - Math.max(start, a)
      if (overlap > 0) total += overlap
    }
  }
  return total
}
