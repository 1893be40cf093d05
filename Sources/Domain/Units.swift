import Foundation

// MARK: - Units
//
// Quantities are plain `Double`s named for their unit through type aliases. The choice is
// deliberate: values flow straight from `Measurement` (whose fields are `Double?`) and from the
// database into the calculations without wrapping and unwrapping, while every signature still
// states its unit. An alias cannot stop a caller from passing ppm where µg/m³ is expected, so
// argument labels repeat the unit wherever two units could meet (`microgramsPerCubicMetre:`,
// `distanceMetres:`).

/// A particulate mass concentration, µg/m³ (PM10, PM2.5).
public typealias MicrogramsPerCubicMetre = Double
/// A gas mixing ratio, ppm (O3, NO2, CO, SO2), as AirKorea publishes it.
public typealias PartsPerMillion = Double
/// A mass, µg.
public typealias Micrograms = Double
/// An inhalation (ventilation) rate, m³/h.
public typealias CubicMetresPerHour = Double
/// A distance, m.
public typealias Metres = Double
/// A duration, h.
public typealias Hours = Double
/// A speed, km/h.
public typealias KilometresPerHour = Double

// MARK: - Pollutant names

/// Which particulate fraction: PM10 (fine dust, 미세먼지) or PM2.5 (ultrafine dust, 초미세먼지).
public enum DustKind: String, CaseIterable, Hashable, Sendable, Codable {
    case pm10
    case pm25

    /// The same pollutant in the wider `Pollutant` enumeration.
    public var pollutant: Pollutant {
        switch self {
        case .pm10: .pm10
        case .pm25: .pm25
        }
    }
}

/// A pollutant AirKorea measures. PM in µg/m³; gases in ppm.
public enum Pollutant: String, CaseIterable, Hashable, Sendable, Codable {
    case pm10, pm25, o3, no2, co, so2

    /// The particulate fraction, or nil for a gas.
    public var dustKind: DustKind? {
        switch self {
        case .pm10: .pm10
        case .pm25: .pm25
        default: nil
        }
    }

    /// The unit AirKorea publishes this pollutant in: `µg/m³` or `ppm`.
    public var unitSymbol: String { dustKind == nil ? "ppm" : "µg/m³" }
}

extension DustPair {
    /// The member for `kind`.
    public subscript(kind: DustKind) -> Value {
        get { kind == .pm10 ? pm10 : pm25 }
        set {
            switch kind {
            case .pm10: pm10 = newValue
            case .pm25: pm25 = newValue
            }
        }
    }
}

extension PollutantValues {
    /// The value for `pollutant`, nil when absent.
    public subscript(pollutant: Pollutant) -> Value? {
        get {
            switch pollutant {
            case .pm10: pm10
            case .pm25: pm25
            case .o3: o3
            case .no2: no2
            case .co: co
            case .so2: so2
            }
        }
        set {
            switch pollutant {
            case .pm10: pm10 = newValue
            case .pm25: pm25 = newValue
            case .o3: o3 = newValue
            case .no2: no2 = newValue
            case .co: co = newValue
            case .so2: so2 = newValue
            }
        }
    }
}
