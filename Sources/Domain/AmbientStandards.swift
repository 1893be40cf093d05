/// Korea's ambient air-quality standard for particulate matter (환경기준, 환경정책기본법 시행령
/// 별표 1), 24-hour mean, µg/m³: PM10 100, PM2.5 35. A day exceeds it when its mean is strictly
/// above the level.
///
/// The `exceedance_daily` view and the report compare against these values; a test fails when
/// the view's SQL and these constants drift apart.
public enum KoreanAmbientStandard {
    /// The 24-hour level for `kind`, µg/m³.
    public static func twentyFourHour(_ kind: DustKind) -> MicrogramsPerCubicMetre {
        switch kind {
        case .pm10: 100
        case .pm25: 35
        }
    }
}

/// When a day's mean may be judged against a 24-hour level: with at least 18 of its 24 hours
/// measured (75 %), the completeness rule of the `exceedance_daily` view and the report.
public enum DailyMeanRule {
    /// Hours in a day.
    public static let hoursPerDay = 24
    /// Hours with data a day needs before its mean is judged.
    public static let minimumHours = 18

    /// Whether a day with `hours` hours of data is judged.
    public static func isJudged(hoursWithData hours: Int) -> Bool { hours >= minimumHours }

    /// The share of a day that must have data, 0.75.
    public static var minimumShare: Double { Double(minimumHours) / Double(hoursPerDay) }
}
