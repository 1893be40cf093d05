/// One value per pollutant AirKorea measures, each optional (missing is nil, never 0).
public struct PollutantValues<Value>: Sendable where Value: Sendable {
    public var pm10: Value?
    public var pm25: Value?
    public var o3: Value?
    public var no2: Value?
    public var co: Value?
    public var so2: Value?

    public init(pm10: Value? = nil, pm25: Value? = nil, o3: Value? = nil, no2: Value? = nil, co: Value? = nil, so2: Value? = nil) {
        self.pm10 = pm10; self.pm25 = pm25; self.o3 = o3; self.no2 = no2; self.co = co; self.so2 = so2
    }
}
extension PollutantValues: Equatable where Value: Equatable {}
extension PollutantValues: Hashable where Value: Hashable {}
