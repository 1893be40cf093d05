import Pipeline

/// The diagnostic codes only OpenAQ answers raise (the shared ones — `missing-value`,
/// `unparsable-number`, `type-mismatch` … — come from FeedCore). Named with an `openAQ` prefix
/// so they never collide with another feed's constants where several feeds are imported.
extension DiagnosticCode {
    /// `coverage.percentComplete` is above 100: kept as delivered, but it is not a completeness
    /// (`coverage-over-100`).
    public static let openAQCoverageOver100 = DiagnosticCode("coverage-over-100")
    /// A timestamp without an offset, or not a timestamp at all: never guessed (`bad-datetime`).
    public static let openAQBadDatetime = DiagnosticCode("bad-datetime")
    /// A row's period is not one hour (a raw or daily value in an hourly answer): skipped
    /// (`not-hourly`).
    public static let openAQNotHourly = DiagnosticCode("not-hourly")
    /// A second row with the same natural key in one answer: the first is kept
    /// (`duplicate-row`).
    public static let openAQDuplicateRow = DiagnosticCode("duplicate-row")
    /// Coordinates outside −90…90 / −180…180, or only one of the two: stored as missing
    /// (`bad-coordinate`).
    public static let openAQBadCoordinate = DiagnosticCode("bad-coordinate")
    /// A value that should be `true` or `false` is neither: stored as missing (`bad-boolean`).
    public static let openAQBadBoolean = DiagnosticCode("bad-boolean")
    /// A count or percentage that cannot be negative is: stored as missing (`negative-count`).
    public static let openAQNegativeCount = DiagnosticCode("negative-count")
    /// `meta.found` is neither a number nor `">N"`: ignored, it is only a hint
    /// (`unreadable-found`).
    public static let openAQUnreadableFound = DiagnosticCode("unreadable-found")
}
