import Pipeline

/// The diagnostic codes only AirKorea items raise.
extension DiagnosticCode {
    /// `dataTime` (or a forecast's release time) is not an AirKorea hour label (`bad-data-time`).
    public static let badDataTime = DiagnosticCode("bad-data-time")
    /// A forecast's `informData` is not a date (`bad-forecast-date`).
    public static let badForecastDate = DiagnosticCode("bad-forecast-date")
    /// A region entry of a forecast's `informGrade` cannot be read (`bad-region-grade`).
    public static let badRegionGrade = DiagnosticCode("bad-region-grade")
    /// A measurement or release is timed more than a day after the fetch (`future-time`).
    public static let futureTime = DiagnosticCode("future-time")
    /// A station coordinate lies outside its plausible range (`implausible-coordinate`).
    public static let implausibleCoordinate = DiagnosticCode("implausible-coordinate")
    /// A number lies outside its plausible range (`implausible-value`).
    public static let implausibleValue = DiagnosticCode("implausible-value")
    /// A station item has no usable coordinate (`missing-coordinate`).
    public static let missingCoordinate = DiagnosticCode("missing-coordinate")
    /// A forecast item has no `informCode` (`missing-inform-code`).
    public static let missingInformCode = DiagnosticCode("missing-inform-code")
    /// A TM-coordinate item names no place (`missing-place`).
    public static let missingPlace = DiagnosticCode("missing-place")
    /// A nearby-station page has no query point to measure from (`missing-query-point`).
    public static let missingQueryPoint = DiagnosticCode("missing-query-point")
    /// An item names no station and the request none to fall back on (`missing-station`).
    public static let missingStation = DiagnosticCode("missing-station")
    /// A grade is not 1…4 (`unparsable-grade`).
    public static let unparsableGrade = DiagnosticCode("unparsable-grade")
}
