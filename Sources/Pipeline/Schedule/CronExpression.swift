import Foundation

/// A parsed five-field cron expression — `minute hour day-of-month month day-of-week` — in the
/// dialect of Vixie cron and cronie.
///
/// Supported: `*`, numbers, lists (`1,15`), ranges (`9-17`), steps (`*/15`, `0-30/10`, and
/// `5/15`, read as `5-59/15`), month names `JAN`–`DEC`, day names `SUN`–`SAT` (case-insensitive,
/// also inside ranges), day-of-week `7` as Sunday, and the macros `@yearly` (`@annually`),
/// `@monthly`, `@weekly`, `@daily` (`@midnight`) and `@hourly`.
///
/// Day rule (as in Vixie cron): when the day-of-month and day-of-week fields are both
/// restricted, a day matches if *either* matches; when either field starts with `*` (including
/// `*/2`), both must match. The expression carries no time zone: see `CronSchedule`.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written (macros kept as written).
    public let text: String
    public let minute: CronField
    public let hour: CronField
    public let dayOfMonth: CronField
    public let month: CronField
    /// Day of week, 0 = Sunday … 6 = Saturday (7 is folded into 0).
    public let dayOfWeek: CronField

    public var description: String { text }

    /// The five fields, after macro expansion (`@daily` → `0 0 * * *`).
    public var fieldsText: String { [minute, hour, dayOfMonth, month, dayOfWeek].map(\.text).joined(separator: " ") }

    /// A "fixed-time" job in Vixie cron's sense: neither the minute nor the hour field starts
    /// with `*`. Only such jobs are caught up after a spring-forward gap and held to one run in a
    /// repeated fall-back hour; interval jobs (`*/15 * * * *`, `0 * * * *`) follow the clock.
    public var isFixedTime: Bool { !minute.isStar && !hour.isStar }

    /// Whether the day-of-month / day-of-week OR rule applies (both fields restricted).
    public var usesEitherDayRule: Bool { !dayOfMonth.isStar && !dayOfWeek.isStar }

    static let macros: [String: String] = [
        "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
        "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
    ]

    /// Parses an expression; errors name the field and the token at fault.
    public init(parsing text: String) throws(CronParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        self.text = trimmed
        var fieldsText = trimmed
        if trimmed.hasPrefix("@") {
            let macro = trimmed.lowercased()
            guard let expansion = Self.macros[macro] else {
                throw CronParseError(field: nil, token: trimmed, reason: macro == "@reboot"
                    ? "@reboot has no times to schedule; use a 5-field expression or one of @yearly, @monthly, @weekly, @daily, @hourly"
                    : "is not a known macro; known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly")
            }
            fieldsText = expansion
        }
        let parts = fieldsText.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard parts.count == 5 else {
            throw CronParseError(field: nil, token: trimmed, reason: "has \(parts.count) field\(parts.count == 1 ? "" : "s"); a cron expression has 5: minute hour day-of-month month day-of-week (or a macro such as @hourly)")
        }
        minute = try CronField(parsing: parts[0], kind: .minute)
        hour = try CronField(parsing: parts[1], kind: .hour)
        dayOfMonth = try CronField(parsing: parts[2], kind: .dayOfMonth)
        month = try CronField(parsing: parts[3], kind: .month)
        dayOfWeek = try CronField(parsing: parts[4], kind: .dayOfWeek)

        // An expression whose day-of-month only names days its months never have never fires
        // (`0 0 30 2 *`); cron accepts it silently, feedline says so.
        if !usesEitherDayRule {
            let possible = month.values.contains { m in dayOfMonth.values.contains { $0 <= Self.maximumDays(inMonth: m) } }
            if !possible {
                throw CronParseError(field: .dayOfMonth, token: parts[2],
                                     reason: "never occurs in the months named by '\(parts[3])', so the expression would never fire")
            }
        }
    }

    /// Whether the calendar day (in the schedule's zone) is one the expression runs on.
    /// `weekday`: 0 = Sunday.
    public func matchesDay(month m: Int, day: Int, weekday: Int) -> Bool {
        guard month.contains(m) else { return false }
        let domOK = dayOfMonth.contains(day), dowOK = dayOfWeek.contains(weekday)
        return usesEitherDayRule ? (domOK || dowOK) : (domOK && dowOK)
    }

    /// Whether a wall-clock minute matches all five fields.
    public func matches(month m: Int, day: Int, weekday: Int, hour h: Int, minute mi: Int) -> Bool {
        matchesDay(month: m, day: day, weekday: weekday) && hour.contains(h) && minute.contains(mi)
    }

    static func maximumDays(inMonth month: Int) -> Int {
        switch month {
        case 2: return 29
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// One field of a cron expression: the set of values it allows.
public struct CronField: Sendable, Hashable {
    /// Which field, with its range and names.
    public enum Kind: String, Sendable, CaseIterable {
        case minute, hour
        case dayOfMonth = "day-of-month"
        case month
        case dayOfWeek = "day-of-week"

        /// Allowed numbers (day-of-week accepts 7 for Sunday).
        public var range: ClosedRange<Int> {
            switch self {
            case .minute: return 0...59
            case .hour: return 0...23
            case .dayOfMonth: return 1...31
            case .month: return 1...12
            case .dayOfWeek: return 0...7
            }
        }

        var names: [String] {
            switch self {
            case .month: return ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
            case .dayOfWeek: return ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
            default: return []
            }
        }

        /// Value of the first name (JAN = 1, SUN = 0).
        var firstNameValue: Int { self == .month ? 1 : 0 }
    }

    public let kind: Kind
    /// The field as written.
    public let text: String
    /// Bit `n` set when value `n` is allowed.
    public let mask: UInt64
    /// The field starts with `*` (Vixie cron's "star" flag, which decides the day rule).
    public let isStar: Bool

    /// The allowed values, ascending.
    public let values: [Int]
    /// Whether `value` is allowed.
    public func contains(_ value: Int) -> Bool { value >= 0 && value < 64 && mask & (1 << UInt64(value)) != 0 }
    /// Whether every value of the field's range is allowed.
    public var isFull: Bool {
        let r = kind == .dayOfWeek ? 0...6 : kind.range
        return r.allSatisfy(contains)
    }

    /// Parses one field.
    public init(parsing text: String, kind: Kind) throws(CronParseError) {
        self.kind = kind
        self.text = text
        self.isStar = text.hasPrefix("*")
        var mask: UInt64 = 0
        let elements = text.split(separator: ",", omittingEmptySubsequences: false)
        for element in elements {
            let element = String(element)
            guard !element.isEmpty else {
                throw CronParseError(field: kind, token: text, reason: "has an empty list element")
            }
            mask |= try Self.parseElement(element, kind: kind)
        }
        if kind == .dayOfWeek, mask & (1 << 7) != 0 { mask = (mask & ~(1 << 7)) | 1 }  // 7 is Sunday
        self.mask = mask
        self.values = (0..<64).filter { mask & (1 << UInt64($0)) != 0 }
    }

    private static func parseElement(_ element: String, kind: Kind) throws(CronParseError) -> UInt64 {
        let range = kind.range
        let pieces = element.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count <= 2 else { throw CronParseError(field: kind, token: element, reason: "has more than one '/'") }
        var step = 1
        if pieces.count == 2 {
            guard let s = Int(pieces[1]), pieces[1].allSatisfy(\.isASCII) else {
                throw CronParseError(field: kind, token: element, reason: "has a step '\(pieces[1])' that is not a whole number")
            }
            guard s >= 1, s <= range.upperBound - range.lowerBound + 1 else {
                throw CronParseError(field: kind, token: element, reason: "has a step of \(s); steps run from 1 to \(range.upperBound - range.lowerBound + 1)")
            }
            step = s
        }
        let base = pieces[0]
        let low: Int, high: Int
        if base == "*" {
            (low, high) = (range.lowerBound, kind == .dayOfWeek ? 6 : range.upperBound)
        } else if let dash = base.firstIndex(of: "-") {
            let a = String(base[..<dash]), b = String(base[base.index(after: dash)...])
            low = try value(a, kind: kind, in: element)
            high = try value(b, kind: kind, in: element)
            guard low <= high else {
                throw CronParseError(field: kind, token: element, reason: "is a range that runs backwards (\(a) is after \(b))")
            }
        } else {
            low = try value(base, kind: kind, in: element)
            // `5/15` means "from 5, every 15" (5-59/15), as cronie reads it.
            high = pieces.count == 2 ? (kind == .dayOfWeek ? 7 : range.upperBound) : low
        }
        var mask: UInt64 = 0
        var v = low
        while v <= high {
            mask |= 1 << UInt64(v)
            v += step
        }
        return mask
    }

    private static func value(_ token: String, kind: Kind, in element: String) throws(CronParseError) -> Int {
        if token.isEmpty { throw CronParseError(field: kind, token: element, reason: "has a range with a missing end") }
        if token.allSatisfy({ $0.isASCII && $0.isNumber }) {
            guard let n = Int(token), kind.range.contains(n) else {
                throw CronParseError(field: kind, token: token, reason: "is out of range \(kind.range.lowerBound)–\(kind.range.upperBound)")
            }
            return n
        }
        if let index = kind.names.firstIndex(of: token.uppercased()) {
            return index + kind.firstNameValue
        }
        let hint: String
        switch kind {
        case .month: hint = "a number 1–12 or a month name JAN–DEC"
        case .dayOfWeek: hint = "a number 0–7 (0 and 7 are Sunday) or a day name SUN–SAT"
        default: hint = "a number \(kind.range.lowerBound)–\(kind.range.upperBound)"
        }
        throw CronParseError(field: kind, token: token, reason: "is not \(hint)")
    }
}

/// Why a cron expression could not be read: the field (nil for the expression as a whole),
/// the token at fault and the reason, as one sentence.
public struct CronParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var field: CronField.Kind?
    public var token: String
    public var reason: String

    public init(field: CronField.Kind?, token: String, reason: String) {
        self.field = field; self.token = token; self.reason = reason
    }

    public var description: String {
        if let field { return "\(field.rawValue) field: '\(token)' \(reason)." }
        return "'\(token)' \(reason)."
    }
}
