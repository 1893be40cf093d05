/// Fine dust (PM10) and ultrafine dust (PM2.5) carried together.
///
/// PM2.5 is part of PM10, so the two are never added together. Where one combined figure is
/// wanted, use `pm25` and `coarse` (PM10 − PM2.5) instead.
public struct DustPair<Value> {
    /// PM10, particles ≤ 10 µm.
    public var pm10: Value
    /// PM2.5, particles ≤ 2.5 µm (a subset of PM10).
    public var pm25: Value

    public init(pm10: Value, pm25: Value) {
        self.pm10 = pm10
        self.pm25 = pm25
    }

    /// Applies `transform` to both members.
    public func map<T>(_ transform: (Value) throws -> T) rethrows -> DustPair<T> {
        DustPair<T>(pm10: try transform(pm10), pm25: try transform(pm25))
    }

    /// Combines two pairs member by member.
    public func zip<Other, T>(_ other: DustPair<Other>, _ combine: (Value, Other) throws -> T) rethrows -> DustPair<T> {
        DustPair<T>(pm10: try combine(pm10, other.pm10), pm25: try combine(pm25, other.pm25))
    }
}

extension DustPair: Equatable where Value: Equatable {}
extension DustPair: Hashable where Value: Hashable {}
extension DustPair: Sendable where Value: Sendable {}
extension DustPair: Codable where Value: Codable {}

extension DustPair where Value == Double? {
    /// The coarse fraction PM10 − PM2.5 in µg/m³, when both are present and PM2.5 ≤ PM10.
    public var coarse: Double? {
        guard let pm10, let pm25, pm25 <= pm10 else { return nil }
        return pm10 - pm25
    }
}
