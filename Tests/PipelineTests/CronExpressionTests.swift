import Foundation
import Pipeline
import PropertyBased
import Testing

@Suite("Cron expressions: parsing")
struct CronExpressionTests {
    @Test("lists, ranges, steps and names become the expected value sets")
    func fieldSets() throws {
        let e = try CronExpression(parsing: "0,15-20/5,*/30 9-17 1,15 jan-MAR,Dec MON-FRI")
        #expect(e.minute.values == [0, 15, 20, 30])
        #expect(e.hour.values == Array(9...17))
        #expect(e.dayOfMonth.values == [1, 15])
        #expect(e.month.values == [1, 2, 3, 12])
        #expect(e.dayOfWeek.values == [1, 2, 3, 4, 5])
        #expect(e.usesEitherDayRule)
        #expect(e.isFixedTime)
    }

    @Test("day-of-week 7 is Sunday, `N/step` runs to the end of the field, and `*` sets the star flag")
    func sundaySevenAndOpenSteps() throws {
        #expect(try CronExpression(parsing: "0 0 * * 7").dayOfWeek.values == [0])
        #expect(try CronExpression(parsing: "0 0 * * 5-7").dayOfWeek.values == [0, 5, 6])
        #expect(try CronExpression(parsing: "5/20 * * * *").minute.values == [5, 25, 45])
        let e = try CronExpression(parsing: "*/20 * */2 * 1")
        #expect(e.minute.isStar && e.dayOfMonth.isStar && !e.dayOfWeek.isStar)
        #expect(!e.usesEitherDayRule, "a day-of-month starting with * means AND, as in Vixie cron")
        #expect(!e.isFixedTime)
    }

    @Test("macros expand to their five fields", arguments: [
        ("@yearly", "0 0 1 1 *"), ("@annually", "0 0 1 1 *"), ("@monthly", "0 0 1 * *"), ("@weekly", "0 0 * * 0"),
        ("@daily", "0 0 * * *"), ("@midnight", "0 0 * * *"), ("@hourly", "0 * * * *"), ("@HOURLY", "0 * * * *"),
    ])
    func macros(macro: String, fields: String) throws {
        let e = try CronExpression(parsing: macro)
        #expect(e.fieldsText == fields)
        #expect(e.text == macro)
        #expect(try CronExpression(parsing: fields).minute == e.minute)
    }

    @Test("errors name the field and the bad token", arguments: [
        ("61 * * * *", "minute field: '61' is out of range 0–59."),
        ("* 24 * * *", "hour field: '24' is out of range 0–23."),
        ("* * 0 * *", "day-of-month field: '0' is out of range 1–31."),
        ("* * * FOO *", "month field: 'FOO' is not a number 1–12 or a month name JAN–DEC."),
        ("* * * * MONDAY", "day-of-week field: 'MONDAY' is not a number 0–7 (0 and 7 are Sunday) or a day name SUN–SAT."),
        ("*/0 * * * *", "minute field: '*/0' has a step of 0; steps run from 1 to 60."),
        ("*/x * * * *", "minute field: '*/x' has a step 'x' that is not a whole number."),
        ("30-10 * * * *", "minute field: '30-10' is a range that runs backwards (30 is after 10)."),
        ("1,,2 * * * *", "minute field: '1,,2' has an empty list element."),
        ("1- * * * *", "minute field: '1-' has a range with a missing end."),
        ("0 0 30 2 *", "day-of-month field: '30' never occurs in the months named by '2', so the expression would never fire."),
    ])
    func errors(expression: String, message: String) {
        #expect(throws: CronParseError.self) { try CronExpression(parsing: expression) }
        do { _ = try CronExpression(parsing: expression) } catch { #expect(error.description == message) }
    }

    @Test("wrong field counts and unknown macros are rejected as a whole")
    func wholeExpressionErrors() {
        do { _ = try CronExpression(parsing: "* * * *"); Issue.record("accepted 4 fields") } catch {
            #expect(error.field == nil)
            #expect(error.description.contains("has 4 fields; a cron expression has 5"))
        }
        do { _ = try CronExpression(parsing: "@reboot"); Issue.record("accepted @reboot") } catch {
            #expect(error.description.contains("@reboot has no times to schedule"))
        }
        do { _ = try CronExpression(parsing: "@fortnightly"); Issue.record("accepted @fortnightly") } catch {
            #expect(error.description.hasPrefix("'@fortnightly' is not a known macro"))
        }
    }

    @Test("February 30 is refused, but the OR rule keeps it alive through the weekday")
    func impossibleDays() throws {
        #expect(throws: CronParseError.self) { try CronExpression(parsing: "0 0 31 4,6 *") }
        #expect(try CronExpression(parsing: "0 0 29 2 *").dayOfMonth.values == [29])
        #expect(try CronExpression(parsing: "0 0 30 2 MON").usesEitherDayRule)
    }

    @Test("random expressions parse to the sets their elements describe")
    func generatedExpressionsParse() throws {
        try seededPropertyCheck(count: 400, input: CronGen.expression) { generated in
            let e = try CronExpression(parsing: generated.text)
            #expect(Set(e.minute.values) == generated.minutes, "\(generated.text)")
            #expect(Set(e.hour.values) == generated.hours, "\(generated.text)")
            #expect(Set(e.dayOfMonth.values) == generated.days, "\(generated.text)")
            #expect(Set(e.month.values) == generated.months, "\(generated.text)")
            #expect(Set(e.dayOfWeek.values) == generated.weekdays, "\(generated.text)")
        }
    }
}

@Suite("Cron expressions: systemd OnCalendar")
struct SystemdCalendarTests {
    @Test("fields translate to systemd calendar syntax", arguments: [
        ("20 * * * *", ["*-*-* *:20:00 Asia/Seoul"]),
        ("0 3 * * 1", ["Mon *-*-* 03:00:00 Asia/Seoul"]),
        ("*/15 9-17 * * MON-FRI", ["Mon..Fri *-*-* 09..17:00/15:00 Asia/Seoul"]),
        ("0 0 1 */3 *", ["*-01/3-01 00:00:00 Asia/Seoul"]),
        ("0 6,18 * * 0,6", ["Sun,Sat *-*-* 06,18:00:00 Asia/Seoul"]),
        ("0 0 13 * FRI", ["Fri *-*-* 00:00:00 Asia/Seoul", "*-*-13 00:00:00 Asia/Seoul"]),
        ("0 0 */2 * 1", ["Mon *-*-01/2 00:00:00 Asia/Seoul"]),
        ("@weekly", ["Sun *-*-* 00:00:00 Asia/Seoul"]),
    ])
    func translations(expression: String, expected: [String]) throws {
        #expect(try CronExpression(parsing: expression).systemdOnCalendar(timeZone: "Asia/Seoul") == expected)
    }
}

// MARK: - Generating expressions with independently computed value sets

/// A random cron expression and the value sets it must parse to, computed without the parser.
struct GeneratedCron: Sendable, CustomStringConvertible {
    var text: String
    var minutes: Set<Int>, hours: Set<Int>, days: Set<Int>, months: Set<Int>, weekdays: Set<Int>
    var minuteStar: Bool, hourStar: Bool, dayStar: Bool, weekdayStar: Bool
    var description: String { text }
}

enum CronGen {
    static let monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
    static let dayNames = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]

    /// One field: text, value set, starts with `*`. `dense` favours many values.
    static func field(_ range: ClosedRange<Int>, names: [String] = [], namesStart: Int = 0, dense: Bool,
                      rng: inout any SeededRandomNumberGenerator) -> (String, Set<Int>, Bool) {
        let top = range.upperBound
        func token(_ n: Int) -> String {
            if !names.isEmpty, n - namesStart < names.count, n >= namesStart, Bool.random(using: &rng) {
                let name = names[n - namesStart]
                return Bool.random(using: &rng) ? name : name.lowercased()
            }
            return String(n)
        }
        let count = Int.random(in: 1...3, using: &rng)
        var texts: [String] = [], values = Set<Int>()
        for _ in 0..<count {
            let kind = Int.random(in: 0...(dense ? 3 : 5), using: &rng)
            switch kind {
            case 0:
                texts.append("*"); values.formUnion(range)
            case 1, 2:
                let step = Int.random(in: 1...max(1, min(dense ? 20 : 30, top - range.lowerBound + 1)), using: &rng)
                texts.append("*/\(step)"); values.formUnion(stride(from: range.lowerBound, through: top, by: step))
            case 3:
                let a = Int.random(in: range, using: &rng), b = Int.random(in: a...top, using: &rng)
                let step = Int.random(in: 1...4, using: &rng)
                texts.append("\(token(a))-\(token(b))/\(step)"); values.formUnion(stride(from: a, through: b, by: step))
            case 4:
                let a = Int.random(in: range, using: &rng), b = Int.random(in: a...top, using: &rng)
                texts.append("\(token(a))-\(token(b))"); values.formUnion(a...b)
            default:
                let a = Int.random(in: range, using: &rng)
                texts.append(token(a)); values.insert(a)
            }
        }
        if texts.count > 1 { texts.shuffle(using: &rng) }
        let text = texts.joined(separator: ",")
        return (text, values, text.hasPrefix("*"))
    }

    static let expression = Generator<GeneratedCron, Shrink.None<GeneratedCron>> { rng in
        while true {
            let dense = Int.random(in: 0...3, using: &rng) > 0
            let (mt, m, ms) = field(0...59, dense: dense, rng: &rng)
            let (ht, h, hs) = field(0...23, dense: dense, rng: &rng)
            let (dt, d, ds) = field(1...31, dense: Bool.random(using: &rng), rng: &rng)
            let (mot, mo, _) = field(1...12, names: monthNames, namesStart: 1, dense: Bool.random(using: &rng), rng: &rng)
            var (wt, w, ws) = field(0...7, names: dayNames, namesStart: 0, dense: Bool.random(using: &rng), rng: &rng)
            if w.contains(7) { w.remove(7); w.insert(0) }
            if ws { w.remove(7) }
            let either = !ds && !ws
            // Skip expressions whose days can never happen (the parser refuses them).
            let possible = either || mo.contains { month in d.contains { $0 <= [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] } }
            guard possible else { continue }
            return GeneratedCron(text: [mt, ht, dt, mot, wt].joined(separator: " "), minutes: m, hours: h, days: d, months: mo,
                                 weekdays: w, minuteStar: ms, hourStar: hs, dayStar: ds, weekdayStar: ws)
        }
    }
}
