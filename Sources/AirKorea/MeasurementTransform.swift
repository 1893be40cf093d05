import Domain
import Pipeline

extension DiagnosticCode {
    /// Transform: PM2.5 is larger than PM10 in the same hour (`pm25-above-pm10`).
    public static let pm25AbovePM10 = DiagnosticCode("pm25-above-pm10")
    /// Transform: a concentration lies beyond the top of the AQI scale (`beyond-aqi-scale`).
    public static let beyondAQIScale = DiagnosticCode("beyond-aqi-scale")
    /// Transform: the API's own grade differs from the one computed (`grade-mismatch`).
    public static let gradeMismatch = DiagnosticCode("grade-mismatch")
}

/// AirKorea's hourly measurements are loadable records whose transform stage is
/// `MeasurementTransform`.
extension HourlyMeasurement: LoadableRecord {
    /// Derives feedline's indices and judges AirKorea's grades (`MeasurementTransform`).
    public func transformed() -> (HourlyMeasurement, [Diagnostic]) { MeasurementTransform().apply(self) }

    public var observedSlot: HourSlot? { slot }
}

/// The transform stage for measurements: derives feedline's own indices (Korean grades, CAI,
/// US EPA AQI), cross-checks AirKorea's published grades against them, and flags checks that
/// need the whole record. Published values are never changed here, only judged; every
/// disagreement becomes a diagnostic.
public struct MeasurementTransform: Sendable {
    public init() {}

    /// Returns the measurement with `indices` set, and what was odd about it.
    public func apply(_ m: HourlyMeasurement) -> (HourlyMeasurement, [Diagnostic]) {
        var out = m
        var diagnostics: [Diagnostic] = []
        var location: String { "\(m.stationName) \(m.dataTime)" }  // built only for a diagnostic
        if let pm10 = m.pm.pm10, let pm25 = m.pm.pm25, pm25 > pm10 {
            diagnostics.append(Diagnostic(code: .pm25AbovePM10,
                                          message: "PM2.5 (\(format(pm25))) is above PM10 (\(format(pm10))) although PM2.5 is part of PM10; both kept as published.",
                                          location: location))
        }
        let indices = MeasurementIndices(m)
        out.indices = indices
        // Two named checks rather than a loop over a literal array: this runs for every record.
        func beyondScale(_ name: String) -> Diagnostic {
            Diagnostic(code: .beyondAQIScale,
                       message: "The 24-hour \(name) value is above the top US EPA AQI breakpoint; the AQI is stored as missing, not extrapolated.",
                       location: location)
        }
        if indices.aqi.pm10 == .beyondScale { diagnostics.append(beyondScale("PM10")) }
        if indices.aqi.pm25 == .beyondScale { diagnostics.append(beyondScale("PM2.5")) }
        // With `indices` set, the cross-check reuses their grades instead of grading again.
        for check in crossCheckGrades(out) where check.isVerifiable && !check.agrees {
            diagnostics.append(Diagnostic(
                code: .gradeMismatch,
                message: "AirKorea's \(check.field.rawValue) is \(check.theirs.rawValue) (\(check.theirs.korean)) but \(format(check.basis)) grades \(check.ours.map { "\($0.rawValue) (\($0.korean))" } ?? "-") under the table in force on \(m.slot.date).",
                location: location, value: String(check.theirs.rawValue)))
        }
        return (out, diagnostics)
    }

    private func format(_ value: Double?) -> String {
        guard let value else { return "-" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
