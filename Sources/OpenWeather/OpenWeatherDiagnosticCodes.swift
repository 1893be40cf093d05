import Pipeline

/// The diagnostic codes only OpenWeather answers raise (the shared ones — `missing-value`,
/// `unparsable-number`, `type-mismatch` … — come from FeedCore).
extension DiagnosticCode {
    /// A value lies outside the range OpenWeather documents or physics allows (an `aqi` that is
    /// not 1…5, a negative concentration, humidity above 100 %, a temperature no thermometer
    /// reads in the unit the answer is taken to be in): stored as missing (`out-of-range`).
    public static let outOfRange = DiagnosticCode("out-of-range")
    /// The answer's `coord` is absent or unusable, so the requested location was stored
    /// (`missing-location`).
    public static let missingLocation = DiagnosticCode("missing-location")
    /// The answer's `coord` is more than 0.01° away from the requested location; the answer's
    /// is stored (`location-mismatch`).
    public static let locationMismatch = DiagnosticCode("location-mismatch")
    /// Two entries of one `list` carry the same `dt`: the first is kept, the later skipped
    /// (`duplicate-time`).
    public static let duplicateTime = DiagnosticCode("duplicate-time")
}
