/// The `units` parameter of OpenWeather's weather calls, and the conversions feedline applies so
/// that stored temperatures are always °C and wind speeds always m/s.
///
/// OpenWeather answers temperatures in the unit the request asked for — `standard` (the
/// default) in kelvin, `metric` in °C, `imperial` in °F — and wind speeds in m/s, except
/// `imperial`, which gives mph. The payload itself does not say which unit it is in: the unit
/// comes from the request (or, for a file replayed without one, the pipeline's `units`
/// parameter), and is stored beside the converted values.
///
/// Converted values are rounded to 1e-6 (a millionth of a degree or of a m/s), which removes
/// binary floating-point noise (`298.48 − 273.15` is `25.330000000000013`) and nothing a
/// thermometer or an anemometer can tell apart.
public enum OpenWeatherUnits: String, Sendable, CaseIterable, Hashable, Codable {
    /// Kelvin and m/s (what OpenWeather sends when `units` is absent).
    case standard
    /// °C and m/s.
    case metric
    /// °F and mph.
    case imperial

    /// The unit the API uses when the request names none.
    public static let apiDefault = OpenWeatherUnits.standard

    /// The symbol of the temperatures delivered in these units: `K`, `°C` or `°F`.
    public var temperatureSymbol: String {
        switch self {
        case .standard: "K"
        case .metric: "°C"
        case .imperial: "°F"
        }
    }

    /// The symbol of the wind speeds delivered in these units: `m/s` or `mph`.
    public var speedSymbol: String { self == .imperial ? "mph" : "m/s" }

    /// 0 °C in kelvin.
    public static let kelvinAtZeroCelsius = 273.15
    /// One international mile per hour in m/s (1609.344 m / 3600 s), exactly.
    public static let metresPerSecondPerMilePerHour = 0.44704

    /// A temperature delivered in these units, in °C.
    public func celsius(fromDelivered value: Double) -> Double {
        switch self {
        case .standard: Self.rounded(value - Self.kelvinAtZeroCelsius)
        case .metric: value
        case .imperial: Self.rounded((value - 32) * 5 / 9)
        }
    }

    /// A temperature in °C as these units would deliver it (the inverse of `celsius(fromDelivered:)`).
    public func delivered(fromCelsius celsius: Double) -> Double {
        switch self {
        case .standard: Self.rounded(celsius + Self.kelvinAtZeroCelsius)
        case .metric: celsius
        case .imperial: Self.rounded(celsius * 9 / 5 + 32)
        }
    }

    /// A wind speed delivered in these units, in m/s.
    public func metresPerSecond(fromDelivered value: Double) -> Double {
        self == .imperial ? Self.rounded(value * Self.metresPerSecondPerMilePerHour) : value
    }

    /// A wind speed in m/s as these units would deliver it.
    public func delivered(fromMetresPerSecond value: Double) -> Double {
        self == .imperial ? Self.rounded(value / Self.metresPerSecondPerMilePerHour) : value
    }

    /// `value` rounded to 1e-6; values too large to round that finely are returned unchanged.
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite, value.magnitude < 1e9 else { return value }
        return (value * 1e6).rounded() / 1e6
    }
}
