import Foundation

// MARK: - Slot arithmetic

extension HourSlot {
    /// Hours since 1970-01-01 00:00 KST (the slot's index on a continuous hour axis).
    public var hoursSinceEpoch: Int { date.daysSinceEpoch * 24 + hour }

    /// The slot `hoursSinceEpoch` hours after 1970-01-01 00:00 KST.
    public init(hoursSinceEpoch h: Int) {
        let days = h >= 0 ? h / 24 : (h - 23) / 24
        self.init(date: LocalDate(daysSinceEpoch: days), hour: h - days * 24)!
    }

    /// This slot moved by `hours` (negative moves back).
    public func adding(hours: Int) -> HourSlot { HourSlot(hoursSinceEpoch: hoursSinceEpoch + hours) }

    /// The slot before this one (hour 0 steps back to hour 23 of the previous day).
    public var previous: HourSlot { adding(hours: -1) }
}

extension LocalDate {
    /// The 24 slots starting on this date, hours 0…23 in order.
    public var hourSlots: [HourSlot] { (0..<24).map { HourSlot(date: self, hour: $0)! } }
}

// MARK: - HourlySeries

/// Values keyed by `HourSlot` (interval start, KST), backed by a dictionary.
///
/// A series is never aligned by position: a missing hour is simply absent and cannot shift the
/// hours after it (the original app's positional `zip` did, DOMAIN.md §2.6 item 2). Combine two
/// series with `zip`, which pairs equal keys only.
public struct HourlySeries<Value> {
    /// The values, by slot.
    public private(set) var valuesBySlot: [HourSlot: Value]

    /// An empty series.
    public init() { valuesBySlot = [:] }

    /// A series holding `values`.
    public init(_ values: [HourSlot: Value]) { valuesBySlot = values }

    /// A series from `(slot, value)` pairs; `combine` decides between two values for one slot.
    public init(_ pairs: some Sequence<(HourSlot, Value)>,
                uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        valuesBySlot = try Dictionary(pairs, uniquingKeysWith: combine)
    }

    /// The value for `slot`, nil when the hour is missing. Setting nil removes the hour.
    public subscript(slot: HourSlot) -> Value? {
        get { valuesBySlot[slot] }
        set { valuesBySlot[slot] = newValue }
    }

    /// The number of hours present.
    public var count: Int { valuesBySlot.count }

    /// True when no hour is present.
    public var isEmpty: Bool { valuesBySlot.isEmpty }

    /// The slots present, ascending.
    public var slots: [HourSlot] { valuesBySlot.keys.sorted() }

    /// The `(slot, value)` entries, ascending by slot.
    public var entries: [(slot: HourSlot, value: Value)] {
        valuesBySlot.sorted { $0.key < $1.key }.map { (slot: $0.key, value: $0.value) }
    }

    /// The dates on which at least one present slot starts, ascending.
    public var dates: [LocalDate] { Set(valuesBySlot.keys.map(\.date)).sorted() }

    /// The same slots with each value transformed.
    public func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> HourlySeries<T> {
        HourlySeries<T>(try valuesBySlot.mapValues(transform))
    }

    /// The same slots with each value transformed; slots whose transform returns nil are dropped.
    public func compactMapValues<T>(_ transform: (Value) throws -> T?) rethrows -> HourlySeries<T> {
        HourlySeries<T>(try valuesBySlot.compactMapValues(transform))
    }

    /// The hours for which `isIncluded` is true.
    public func filter(_ isIncluded: (HourSlot, Value) throws -> Bool) rethrows -> HourlySeries {
        HourlySeries(try valuesBySlot.filter { try isIncluded($0.key, $0.value) })
    }

    /// The hours whose slot starts on `date` (KST).
    public func on(_ date: LocalDate) -> HourlySeries { filter { slot, _ in slot.date == date } }

    /// The series split by the KST date on which each slot starts.
    public func groupedByDate() -> [LocalDate: HourlySeries<Value>] {
        var groups: [LocalDate: HourlySeries<Value>] = [:]
        for (slot, value) in valuesBySlot { groups[slot.date, default: HourlySeries()][slot] = value }
        return groups
    }

    /// The values of the hours starting on `date`, keyed by hour 0…23.
    public func byHour(on date: LocalDate) -> [Int: Value] {
        var result: [Int: Value] = [:]
        for (slot, value) in valuesBySlot where slot.date == date { result[slot.hour] = value }
        return result
    }

    /// This series with `other`'s hours added; `combine` decides where both have a value.
    public func merging(_ other: HourlySeries<Value>,
                        uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows -> HourlySeries {
        HourlySeries(try valuesBySlot.merging(other.valuesBySlot, uniquingKeysWith: combine))
    }

    /// Pairs this series with `other` by equal slot; only slots present in both appear.
    public func zip<Other, T>(_ other: HourlySeries<Other>,
                              _ combine: (Value, Other) throws -> T) rethrows -> HourlySeries<T> {
        var result: [HourSlot: T] = [:]
        for (slot, value) in valuesBySlot {
            if let otherValue = other.valuesBySlot[slot] { result[slot] = try combine(value, otherValue) }
        }
        return HourlySeries<T>(result)
    }
}

extension HourlySeries: Equatable where Value: Equatable {}
extension HourlySeries: Hashable where Value: Hashable {}
extension HourlySeries: Sendable where Value: Sendable {}
extension HourlySeries: Codable where Value: Codable {}

// MARK: - From measurements

/// One station's hourly PM10 and PM2.5 concentrations (µg/m³) keyed by slot.
///
/// Missing values stay absent (never 0). Pass one station's hours; when two carry a value for
/// the same slot, the later one in `hours` wins.
public func hourlyPM(from hours: some Sequence<(slot: HourSlot, pm: DustPair<Double?>)>) -> DustPair<HourlySeries<MicrogramsPerCubicMetre>> {
    var result = DustPair(pm10: HourlySeries<MicrogramsPerCubicMetre>(), pm25: HourlySeries<MicrogramsPerCubicMetre>())
    for hour in hours {
        for kind in DustKind.allCases {
            if let value = hour.pm[kind] { result[kind][hour.slot] = value }
        }
    }
    return result
}
