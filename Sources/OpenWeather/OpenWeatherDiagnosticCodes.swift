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
    /// A geocoding answer is an empty list: nothing matched the `q`, so no place is stored
    /// (`place-not-found`).
    public static let placeNotFound = DiagnosticCode("place-not-found")
    /// A geocoding answer came without its request (a fixture, a bare file) and does not name
    /// the `q` given for it, so it is stored under its own name and country
    /// (`query-from-answer`).
    public static let queryFromAnswer = DiagnosticCode("query-from-answer")
    /// A geocoding answer lists more than one place (a file fetched with a larger `limit`):
    /// the first, the best match, is kept (`extra-places`).
    public static let extraPlaces = DiagnosticCode("extra-places")
}
