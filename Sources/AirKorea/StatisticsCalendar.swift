import Domain
import FeedCore
import Foundation

// MARK: - Months

/// A calendar month with no time zone attached: the key of AirKorea's monthly statistics
/// (`msurMm` `2024-02`) and the unit its monthly requests ask for (`inqBginMm` `202402`).
public struct YearMonth: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    /// 1…12.
    public let month: Int

    /// The month, or nil when `year` is outside 1…9999 or `month` outside 1…12.
    public init?(year: Int, month: Int) {
        guard (1...9999).contains(year), (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
    }

    /// The month holding `date`.
    public init(containing date: LocalDate) {
        year = date.year
        month = date.month
    }

    /// Parses `YYYY-MM` (how `msurMm` is written) or `YYYYMM` (how `inqBginMm` is written);
    /// nil for anything else.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        let digits: [UInt8]
        switch bytes.count {
        case 7 where bytes[4] == UInt8(ascii: "-"): digits = Array(bytes[0..<4] + bytes[5..<7])
        case 6: digits = bytes
        default: return nil
        }
        guard let number = StatisticsCalendar.decimal(digits[...]) else { return nil }
        self.init(year: number / 100, month: number % 100)
    }

    /// Months since January of year 0: consecutive months have consecutive ordinals.
    var ordinal: Int { year * 12 + month - 1 }

    private init?(ordinal: Int) {
        self.init(year: ordinal >= 0 ? ordinal / 12 : -1, month: ordinal >= 0 ? ordinal % 12 + 1 : 0)
    }

    /// This month moved by `months` (negative moves back); nil outside the years 1…9999.
    public func adding(months: Int) -> YearMonth? {
        let (sum, overflow) = ordinal.addingReportingOverflow(months)
        return overflow ? nil : YearMonth(ordinal: sum)
    }

    /// Every month from this one through `last`, in order; empty when `last` is earlier.
    public func through(_ last: YearMonth) -> [YearMonth] {
        guard last >= self else { return [] }
        return (ordinal...last.ordinal).compactMap { YearMonth(ordinal: $0) }
    }

    /// The number of months from this one through `last`, both counted (0 when `last` is earlier).
    public func count(through last: YearMonth) -> Int { max(0, last.ordinal - ordinal + 1) }

    /// The first day of the month.
    public var firstDay: LocalDate { LocalDate(year: year, month: month, day: 1)! }

    public static func < (a: YearMonth, b: YearMonth) -> Bool { a.ordinal < b.ordinal }

    /// `YYYY-MM`.
    public var description: String { StatisticsCalendar.padded(year, 4) + "-" + StatisticsCalendar.padded(month, 2) }

    /// `YYYYMM`, as the monthly statistics operation takes it.
    public var compact: String { StatisticsCalendar.padded(year, 4) + StatisticsCalendar.padded(month, 2) }
}

// MARK: - Moments written as a date and a time of day

/// A moment AirKorea writes as a KST date and a time of day to the minute (the PM alerts'
/// `issueDate` `2024-01-08` and `issueTime` `10:00`). AirKorea's clock runs 01:00…24:00 in its
/// hourly data, so `24:00` is read as the end of its day (the next day's 00:00) and kept as
/// written in `label`. Two values are equal when written alike; compare `instant`s to order
/// them (`2024-01-08 24:00` and `2024-01-09 00:00` are the same moment).
public struct KSTMinute: Hashable, Sendable, CustomStringConvertible {
    /// The day as written.
    public let date: LocalDate
    /// Minutes after the day's 00:00 KST, 0…1440 (1440 is `24:00`).
    public let minuteOfDay: Int

    /// The moment, or nil when `minuteOfDay` is outside 0…1440.
    public init?(date: LocalDate, minuteOfDay: Int) {
        guard (0...1440).contains(minuteOfDay) else { return nil }
        self.date = date
        self.minuteOfDay = minuteOfDay
    }

    /// Reads a date (`YYYY-MM-DD`, `YYYYMMDD` or `YYYY.MM.DD`) and a time of day (`HH:MM`,
    /// `H:MM`, `HHMM`, `HH` or `HH시`, hours 0…24, `24` only as `24:00`); nil when either is
    /// not one.
    public init?(date dateText: some StringProtocol, time timeText: some StringProtocol) {
        guard let date = StatisticsCalendar.day(dateText), let minutes = StatisticsCalendar.minuteOfDay(timeText) else { return nil }
        self.init(date: date, minuteOfDay: minutes)
    }

    /// The UTC instant (KST is UTC+9 all year).
    public var instant: Date {
        Date(timeIntervalSince1970: TimeInterval((date.daysSinceEpoch * 1440 + minuteOfDay) * 60 - HourSlot.seoulOffsetSeconds))
    }

    /// `YYYY-MM-DD HH:MM` in KST, with `24:00` kept as written.
    public var label: String {
        "\(date) \(StatisticsCalendar.padded(minuteOfDay / 60, 2)):\(StatisticsCalendar.padded(minuteOfDay % 60, 2))"
    }

    public var description: String { label + " KST" }
}

// MARK: - Reading the parameters and fields

/// The pure readings of the statistics and alert services' dates, months and years, shared by
/// the request checks (`inqBginDt`, `inqBginMm`, `year`) and the item mappings (`msurDt`,
/// `msurMm`, `issueDate`).
///
/// Request parameters are also accepted in the form `{today}` and `{yesterday}` expand to
/// (`YYYY-MM-DD`), reduced to what the parameter asks for: `inqBginDt` `20240305`,
/// `inqBginMm` `202403` (the month holding that day), `year` `2024`.
public enum StatisticsCalendar {
    /// Years the alert service's `year` parameter may name.
    public static let years: ClosedRange<Int> = 1990...2100

    /// A day written `YYYY-MM-DD`, `YYYYMMDD` or `YYYY.MM.DD` (surrounding spaces ignored).
    public static func day(_ text: some StringProtocol) -> LocalDate? {
        let bytes = Array(Substring(text).trimmingASCIISpace().utf8)
        let digits: ArraySlice<UInt8>
        switch bytes.count {
        case 8: digits = bytes[...]
        case 10 where bytes[4] == bytes[7] && (bytes[4] == UInt8(ascii: "-") || bytes[4] == UInt8(ascii: ".")):
            digits = (bytes[0..<4] + bytes[5..<7] + bytes[8..<10])[...]
        default: return nil
        }
        guard let number = decimal(digits) else { return nil }
        return LocalDate(year: number / 10_000, month: number / 100 % 100, day: number % 100)
    }

    /// `YYYYMMDD` for a day parameter written `YYYYMMDD` or `YYYY-MM-DD`; nil otherwise.
    public static func compactDay(_ text: some StringProtocol) -> String? {
        guard let date = day(text) else { return nil }
        return padded(date.year, 4) + padded(date.month, 2) + padded(date.day, 2)
    }

    /// The month a month parameter names: `YYYYMM`, `YYYY-MM`, or a day (`YYYY-MM-DD`,
    /// `YYYYMMDD`) standing for the month that holds it.
    public static func month(_ text: some StringProtocol) -> YearMonth? {
        let trimmed = Substring(text).trimmingASCIISpace()
        if let month = YearMonth(trimmed) { return month }
        return day(trimmed).map(YearMonth.init(containing:))
    }

    /// The year a year parameter names: `YYYY`, or a day (`YYYY-MM-DD`, `YYYYMMDD`) standing
    /// for its year; nil outside `years`.
    public static func year(_ text: some StringProtocol) -> Int? {
        let trimmed = Substring(text).trimmingASCIISpace()
        let bytes = Array(trimmed.utf8)
        let year = bytes.count == 4 ? decimal(bytes[...]) : day(trimmed)?.year
        return year.flatMap { years.contains($0) ? $0 : nil }
    }

    /// Minutes after 00:00 for a time of day: `HH:MM` or `H:MM`, `HHMM`, `HH` or `HH시`; hours
    /// 0…24 and minutes 0…59, with 24 only as `24:00` (1440).
    public static func minuteOfDay(_ text: some StringProtocol) -> Int? {
        var trimmed = Substring(text).trimmingASCIISpace()
        if trimmed.hasSuffix("시") { trimmed = trimmed.dropLast().trimmingASCIISpace() }
        let bytes = Array(trimmed.utf8)
        let hours: Int?, minutes: Int?
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            guard (1...2).contains(colon), bytes.count - colon - 1 == 2 else { return nil }
            hours = decimal(bytes[..<colon]); minutes = decimal(bytes[(colon + 1)...])
        } else if bytes.count == 4 {
            hours = decimal(bytes[0..<2]); minutes = decimal(bytes[2..<4])
        } else if (1...2).contains(bytes.count) {
            hours = decimal(bytes[...]); minutes = 0
        } else {
            return nil
        }
        guard let hours, let minutes, (0...24).contains(hours), (0...59).contains(minutes), hours < 24 || minutes == 0 else { return nil }
        return hours * 60 + minutes
    }

    /// The value of ASCII decimal digits (1…9 of them), nil when any byte is not a digit.
    static func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// `n` (≥ 0) with leading zeros to `width` digits.
    static func padded(_ n: Int, _ width: Int) -> String {
        let text = String(n)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
