import Pipeline

// MARK: - Codes every feed shares

extension DiagnosticCode {
    /// Reader: a field held an object or array where a scalar was expected, or an item was not
    /// an object (`type-mismatch`).
    public static let typeMismatch = DiagnosticCode("type-mismatch")
    /// Reader: a value was longer than its `FieldLimit` and was refused (`field-too-long`).
    public static let fieldTooLong = DiagnosticCode("field-too-long")
    /// Reader: U+0000 characters were removed from a value (`nul-removed`).
    public static let nulRemoved = DiagnosticCode("nul-removed")
    /// Reader: an unpaired UTF-16 surrogate escape became U+FFFD (`lone-surrogate`).
    public static let loneSurrogate = DiagnosticCode("lone-surrogate")
    /// Mapping: a value the record needs is missing (`missing-value`).
    public static let missingValue = DiagnosticCode("missing-value")
    /// Mapping: a value that should be a number is not one (`unparsable-number`).
    public static let unparsableNumber = DiagnosticCode("unparsable-number")
}
