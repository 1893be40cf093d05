@testable import AirKorea
import Domain
import Foundation
import PropertyBased
import Testing

/// The seed every property here starts from, so each run checks the same inputs.
let airKoreaSeed: (UInt64, UInt64, UInt64, UInt64) =
    (0x6169_726B_6F72_6561, 0x7374_6174_7300_0001, 0x616C_6572_7473_0002, 0x4B53_5400_0000_0009)

/// Checks `body` on `count` inputs drawn from `input` with a fixed Xoshiro seed (see
/// DomainTests' `seededPropertyCheck`: PropertyBased's `.fixedSeed` is for reproducing one
/// failure, not for staying on a passing test).
func seededPropertyCheck<Value>(count: Int = 400, input: Generator<Value, some Sequence>, perform body: (Value) throws -> Void) rethrows {
    var rng = Xoshiro(seed: airKoreaSeed)
    for _ in 0..<count { try body(input.run(using: &rng)) }
}

@Suite("AirKorea statistics calendar and alert parsing")
struct StatisticsCalendarTests {
    /// Days since epoch covering 1990-01-01 … 2100-12-31.
    let days = Gen.int(in: 7_305...47_482).map { LocalDate(daysSinceEpoch: $0) }
    let months = zip(Gen.int(in: 1990...2100), Gen.int(in: 1...12)).map { YearMonth(year: $0, month: $1)! }
    /// Minutes of a day, 24:00 included.
    let minutes = Gen.int(in: 0...1440)

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }

    // MARK: Months

    @Test("a month survives its YYYY-MM and YYYYMM forms, and the month holding its first day is itself")
    func monthRoundTrip() {
        seededPropertyCheck(input: months) { month in
            #expect(YearMonth(month.description) == month)
            #expect(YearMonth(month.compact) == month)
            #expect(StatisticsCalendar.month(month.compact) == month)
            #expect(YearMonth(containing: month.firstDay) == month)
            #expect(month.firstDay.day == 1)
        }
    }

    @Test("moving by n months and back returns the month; a step forward is later and keeps the day count of years")
    func monthArithmetic() throws {
        try seededPropertyCheck(input: zip(months, Gen.int(in: -600...600))) { month, n in
            let moved = try #require(month.adding(months: n))
            #expect(moved.adding(months: -n) == month)
            #expect((moved > month) == (n > 0) && (moved == month) == (n == 0))
            #expect(month.adding(months: 12 * n)?.month == month.month)
            #expect(moved.ordinal - month.ordinal == n)
        }
        #expect(YearMonth(year: 2023, month: 12)!.adding(months: 1) == YearMonth(year: 2024, month: 1))
        #expect(YearMonth(year: 1, month: 1)!.adding(months: -1) == nil)
        #expect(YearMonth(year: 2024, month: 1)!.adding(months: .max) == nil)
    }

    @Test("the months from one through another are consecutive, complete and in order")
    func monthRanges() {
        seededPropertyCheck(input: zip(months, Gen.int(in: -3...40))) { first, span in
            let last = first.adding(months: span)!
            let range = first.through(last)
            #expect(range.count == first.count(through: last))
            #expect(range.count == max(0, span + 1))
            #expect(zip(range, range.dropFirst()).allSatisfy { $0.adding(months: 1) == $1 })
            if span >= 0 { #expect(range.first == first && range.last == last) }
        }
    }

    @Test("month texts AirKorea never writes are refused", arguments: ["2024-13", "202400", "2024-1", "24-02", "2024/02", "", "-", "2024-02-01x"])
    func badMonths(text: String) {
        #expect(YearMonth(text) == nil)
    }

    // MARK: Day, month and year parameters

    @Test("a day parameter reads the same whether written YYYY-MM-DD or YYYYMMDD, and a day stands for its month and year")
    func dayParameters() {
        seededPropertyCheck(input: days) { day in
            let compact = "\(day.year)\(Self.two(day.month))\(Self.two(day.day))"
            #expect(StatisticsCalendar.compactDay(day.description) == compact)
            #expect(StatisticsCalendar.compactDay(compact) == compact)
            #expect(StatisticsCalendar.day(" \(day) ") == day)
            #expect(StatisticsCalendar.month(day.description) == YearMonth(containing: day))
            #expect(StatisticsCalendar.year(day.description) == day.year)
            #expect(StatisticsCalendar.year(String(day.year)) == day.year)
        }
        #expect(StatisticsCalendar.compactDay("2024-02-30") == nil)
        #expect(StatisticsCalendar.compactDay("2024-0301") == nil)
        #expect(StatisticsCalendar.year("1989") == nil && StatisticsCalendar.year("2101") == nil)
    }

    // MARK: Minutes in KST

    @Test("a KST date and time is 9 hours ahead of its UTC instant, and its label reads back the same")
    func kstMinutes() throws {
        try seededPropertyCheck(input: zip(days, minutes)) { day, minute in
            let time = "\(Self.two(minute / 60)):\(Self.two(minute % 60))"
            let moment = try #require(KSTMinute(date: day.description, time: time))
            #expect(moment.label == "\(day) \(time)")
            #expect(KSTMinute(date: day.description.replacingOccurrences(of: "-", with: ""), time: time) == moment)
            let utc = moment.instant.timeIntervalSince1970
            #expect(Int(utc) == (day.daysSinceEpoch * 1440 + minute - 540) * 60)
            // HourSlot agrees on whole hours (its start is the same instant).
            if minute % 60 == 0 && minute < 1440 {
                #expect(HourSlot(date: day, hour: minute / 60)!.start == moment.instant)
            }
        }
    }

    @Test("24:00 is the next day's 00:00, and later times of a day are later instants")
    func midnightAndOrder() throws {
        try seededPropertyCheck(input: zip(days, minutes, minutes)) { day, a, b in
            let end = try #require(KSTMinute(date: day, minuteOfDay: 1440))
            #expect(end.instant == KSTMinute(date: day.adding(days: 1), minuteOfDay: 0)!.instant)
            #expect(end.label == "\(day) 24:00")
            let x = KSTMinute(date: day, minuteOfDay: a)!, y = KSTMinute(date: day, minuteOfDay: b)!
            #expect((x.instant < y.instant) == (a < b))
        }
    }

    @Test("times of day in the forms AirKorea writes", arguments: [
        ("14:00", 840), ("9:05", 545), ("0900", 540), ("09", 540), ("9시", 540), (" 24:00 ", 1440), ("00:00", 0),
        ("24:01", nil), ("25:00", nil), ("12:60", nil), ("1:2", nil), ("12:5", nil), ("123", nil), ("", nil), ("-", nil), ("ab:cd", nil),
    ] as [(String, Int?)])
    func timesOfDay(text: String, minutes: Int?) {
        #expect(StatisticsCalendar.minuteOfDay(text) == minutes)
    }

    // MARK: Alert levels and pollutants

    @Test("the alert level reads 주의보 and 경보 whatever whitespace surrounds or splits them, and nothing else")
    func alertLevels() {
        let spaces = Gen.element(of: [" ", "\t", "\n", "\u{3000}", ""]).map { $0 ?? "" }.array(of: 0...3).map { $0.joined() }
        seededPropertyCheck(input: zip(Gen<PMAlertLevel>.case, spaces, spaces, spaces)) { level, before, inside, after in
            var letters = Array(level.korean)
            letters.insert(contentsOf: inside, at: 1)
            #expect(PMAlertLevel.parse(before + String(letters) + after) == level)
            #expect(PMAlertLevel.parse(level.korean + "해제") == nil)
            #expect(PMAlertLevel.parse("초" + level.korean) == nil)
        }
        // Any text made of other characters is no level.
        let other = Gen.character(in: "가"..."힣").string(of: 0...4).filter { $0 != "주의보" && $0 != "경보" }
        seededPropertyCheck(input: other) { text in
            #expect(PMAlertLevel.parse(text) == nil)
        }
        #expect(PMAlertLevel.allCases.map(\.korean) == ["주의보", "경보"])
    }

    @Test("the alert pollutant reads PM10, PM25 and PM2.5 in any case, and nothing else", arguments: [
        ("PM10", AlertPollutant.pm10), ("pm10", .pm10), (" PM 10 ", .pm10), ("PM25", .pm25), ("PM2.5", .pm25), ("pm2.5", .pm25),
        ("O3", nil), ("PM1", nil), ("", nil), ("PM100", nil),
    ] as [(String, AlertPollutant?)])
    func alertPollutants(text: String, pollutant: AlertPollutant?) {
        #expect(AlertPollutant.parse(text) == pollutant)
    }
}
