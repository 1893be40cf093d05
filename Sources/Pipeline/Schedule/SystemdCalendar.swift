import Foundation

extension CronExpression {
    /// The expression as systemd `OnCalendar=` values (`DOW YYYY-MM-DD HH:MM:SS ZONE`), one per
    /// line the timer needs: the day-of-month / day-of-week OR rule becomes two values (a timer
    /// fires on the union of its `OnCalendar=` lines); everything else is one value.
    ///
    /// systemd has its own rules for wall-clock times skipped or repeated by a DST change, and
    /// runs a missed timer once (`Persistent=true`); callers say so where that matters.
    public func systemdOnCalendar(timeZone: String) -> [String] {
        let time = "\(Self.systemd(hour, pad: 2)):\(Self.systemd(minute, pad: 2)):00 \(timeZone)"
        let monthText = Self.systemd(month, pad: 2)
        let weekdays = Self.systemdWeekdays(dayOfWeek)
        if usesEitherDayRule {
            return ["\(weekdays) *-\(monthText)-* \(time)", "*-\(monthText)-\(Self.systemd(dayOfMonth, pad: 2)) \(time)"]
        }
        let prefix = dayOfWeek.isFull ? "" : "\(weekdays) "
        return ["\(prefix)*-\(monthText)-\(Self.systemd(dayOfMonth, pad: 2)) \(time)"]
    }

    /// `*`, `start/step` for a progression that runs to the field's end, else a list with
    /// `a..b` ranges.
    static func systemd(_ field: CronField, pad width: Int) -> String {
        if field.isFull { return "*" }
        let values = field.values
        func text(_ n: Int) -> String { let s = String(n); return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s }
        if values.count >= 3 {
            let step = values[1] - values[0]
            let isProgression = zip(values, values.dropFirst()).allSatisfy { $1 - $0 == step }
            if step > 1, isProgression, values.last! + step > field.kind.range.upperBound {
                return "\(text(values[0]))/\(step)"
            }
        }
        return runs(values).map { $0.count >= 3 ? "\(text($0.first!))..\(text($0.last!))" : $0.map(text).joined(separator: ",") }
            .joined(separator: ",")
    }

    static func systemdWeekdays(_ field: CronField) -> String {
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return runs(field.values).map { $0.count >= 3 ? "\(names[$0.first!])..\(names[$0.last!])" : $0.map { names[$0] }.joined(separator: ",") }
            .joined(separator: ",")
    }

    /// Consecutive runs: [1,2,3,7] → [[1,2,3],[7]].
    static func runs(_ values: [Int]) -> [[Int]] {
        var out: [[Int]] = []
        for v in values {
            if let last = out.last?.last, last + 1 == v { out[out.count - 1].append(v) } else { out.append([v]) }
        }
        return out
    }
}
