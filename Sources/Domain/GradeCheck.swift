import Foundation

/// Our grade set beside the one AirKorea published for the same measurement.
///
/// Produced by `crossCheckGrades(on:pm:pm24h:khai:theirs24h:theirs1h:theirsKhai:indices:)`; the
/// storage layer records disagreements as diagnostics.
public struct GradeCheck: Hashable, Sendable {
    /// The AirKorea grade field checked.
    public enum Field: String, CaseIterable, Hashable, Sendable, Codable {
        /// `pm10Grade`, from the 24-h PM10 value (`pm10Value24`).
        case pm10Grade
        /// `pm25Grade`, from the 24-h PM2.5 value (`pm25Value24`).
        case pm25Grade
        /// `pm10Grade1h`, from the hourly PM10 value (`pm10Value`).
        case pm10Grade1h
        /// `pm25Grade1h`, from the hourly PM2.5 value (`pm25Value`).
        case pm25Grade1h
        /// `khaiGrade`, from the CAI value (`khaiValue`).
        case khaiGrade
    }

    /// The field checked (its raw value is AirKorea's field name).
    public let field: Field
    /// The grade AirKorea published.
    public let theirs: AirKoreaGrade
    /// The grade we compute; nil when the value it needs is missing or invalid.
    public let ours: AirKoreaGrade?
    /// The value we graded (µg/m³ for PM, dimensionless for CAI); nil when missing.
    public let basis: Double?

    public init(field: Field, theirs: AirKoreaGrade, ours: AirKoreaGrade?, basis: Double?) {
        self.field = field
        self.theirs = theirs
        self.ours = ours
        self.basis = basis
    }

    /// True when our grade equals AirKorea's (false when we could not compute one).
    public var agrees: Bool { ours == theirs }

    /// True when we could compute a grade to compare (the value behind it was present).
    public var isVerifiable: Bool { ours != nil }
}

/// Recomputes each grade AirKorea supplied for one measurement and pairs it with theirs.
///
/// - The 24-h grades (`theirs24h`: `pm10Grade`/`pm25Grade`) are graded from the 24-h values
///   (`pm24h`), the 1-h grades (`theirs1h`: `pm10Grade1h`/`pm25Grade1h`) from the hourly values
///   (`pm`), both with `KoreanGrading` for `date`.
/// - `theirsKhai` (`khaiGrade`) is graded from `khai` with the CAI bands 0–50/51–100/101–250/251–500.
///
/// Only grades AirKorea supplied (non-nil) are checked, in `GradeCheck.Field` order. When
/// `indices` are given, their Korean grades are used as ours (`MeasurementIndices` grades the
/// same values with the same tables) instead of grading again. Pure: no I/O.
public func crossCheckGrades(on date: LocalDate, pm: DustPair<Double?>, pm24h: DustPair<Double?>, khai: Double?,
                             theirs24h: DustPair<AirKoreaGrade?>, theirs1h: DustPair<AirKoreaGrade?>, theirsKhai: AirKoreaGrade?,
                             indices: MeasurementIndices?) -> [GradeCheck] {
    var checks: [GradeCheck] = []
    checks.reserveCapacity(5)  // one allocation instead of three as it grows (this runs per measurement)

    func checkPM(_ field: GradeCheck.Field, _ kind: DustKind, theirs: AirKoreaGrade?, value: Double?, graded: AirKoreaGrade??) {
        guard let theirs else { return }
        let ours = graded ?? value.flatMap { KoreanGrading.grade(kind, microgramsPerCubicMetre: $0, on: date) }
        checks.append(GradeCheck(field: field, theirs: theirs, ours: ours, basis: value))
    }

    checkPM(.pm10Grade, .pm10, theirs: theirs24h.pm10, value: pm24h.pm10, graded: indices.map { $0.koreanGrade24h.pm10 })
    checkPM(.pm25Grade, .pm25, theirs: theirs24h.pm25, value: pm24h.pm25, graded: indices.map { $0.koreanGrade24h.pm25 })
    checkPM(.pm10Grade1h, .pm10, theirs: theirs1h.pm10, value: pm.pm10, graded: indices.map { $0.koreanGrade1h.pm10 })
    checkPM(.pm25Grade1h, .pm25, theirs: theirs1h.pm25, value: pm.pm25, graded: indices.map { $0.koreanGrade1h.pm25 })
    if let theirs = theirsKhai {
        let ours = khai.flatMap { KoreanCAI.grade(khai: $0) }
        checks.append(GradeCheck(field: .khaiGrade, theirs: theirs, ours: ours, basis: khai))
    }
    return checks
}
