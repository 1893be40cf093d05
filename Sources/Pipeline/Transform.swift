import Domain

/// The transform stage for measurements: checks that need the whole record (not one field),
/// reported as diagnostics. Values are never changed here, only judged.
public struct MeasurementTransform: Sendable {
    public init() {}

    /// Returns the measurement and what was odd about it.
    public func apply(_ m: HourlyMeasurement) -> (HourlyMeasurement, [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        let location = "\(m.stationName) \(m.dataTime)"
        if let pm10 = m.pm.pm10, let pm25 = m.pm.pm25, pm25 > pm10 {
            diagnostics.append(Diagnostic(code: "pm25-above-pm10",
                                          message: "PM2.5 (\(pm25)) is above PM10 (\(pm10)) although PM2.5 is part of PM10; both kept as published.",
                                          location: location))
        }
        return (m, diagnostics)
    }
}
