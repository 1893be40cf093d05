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

/// The diagnostic codes of the statistics and alert operations, and of pages.
extension DiagnosticCode {
    /// A statistics item's `msurDt` or `msurMm` is not a day or month (`bad-stats-date`).
    public static let badStatisticsDate = DiagnosticCode("bad-stats-date")
    /// An alert's `issueGbn` is neither 주의보 nor 경보 (`bad-alert-level`).
    public static let badAlertLevel = DiagnosticCode("bad-alert-level")
    /// An alert's `itemCode` is neither PM10 nor PM25 (`bad-alert-pollutant`).
    public static let badAlertPollutant = DiagnosticCode("bad-alert-pollutant")
    /// An alert's issue or clear date and time cannot be read (`bad-alert-time`).
    public static let badAlertTime = DiagnosticCode("bad-alert-time")
    /// An alert's clear is earlier than its issue (`clear-before-issue`).
    public static let clearBeforeIssue = DiagnosticCode("clear-before-issue")
    /// An alert's clear is half given (a date without a time, a value without either)
    /// (`clear-without-time`).
    public static let clearWithoutTime = DiagnosticCode("clear-without-time")
    /// A first page holds no items although its `totalCount` says there are some (`items-missing`).
    public static let itemsMissing = DiagnosticCode("items-missing")
}
