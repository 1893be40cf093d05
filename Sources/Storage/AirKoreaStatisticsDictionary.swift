/// What the AirKorea statistics and alert tables mean (migration
/// `airkorea-v1-station-stats-and-pm-alerts`, brought by the AirKorea feed's own schema), for
/// `feedline describe` and the Datasette metadata.
extension SchemaDictionary {
    static func statisticsAverages(_ period: String) -> [ColumnEntry] {
        [
            ColumnEntry("pm10_avg", "PM10 \(period) mean of the realtime hourly values, as AirKorea computed it (pm10Value)",
                        unit: .microgramsPerCubicMetre, whose: airKorea),
            ColumnEntry("pm25_avg", "PM2.5 \(period) mean (pm25Value)", unit: .microgramsPerCubicMetre, whose: airKorea),
            ColumnEntry("o3_avg", "Ozone \(period) mean (o3Value)", unit: .ppm, whose: airKorea),
            ColumnEntry("no2_avg", "Nitrogen dioxide \(period) mean (no2Value)", unit: .ppm, whose: airKorea),
            ColumnEntry("co_avg", "Carbon monoxide \(period) mean (coValue)", unit: .ppm, whose: airKorea),
            ColumnEntry("so2_avg", "Sulphur dioxide \(period) mean (so2Value)", unit: .ppm, whose: airKorea),
            payloadSHA256,
            revision,
        ]
    }

    static let alertKST = "KST 'YYYY-MM-DD HH:MM' as delivered (24:00 kept: the end of that day)"

    static let airKoreaStatistics: [RelationEntry] = [
        RelationEntry("station_daily_stats",
                      "One AirKorea station × KST day: the daily means AirKorea publishes (ArpltnStatsSvc, of the realtime stream, not confirmed data); NULL where it gave none", [
            ColumnEntry("station_name", "AirKorea station name (msrstnName; station.name)"),
            ColumnEntry("kst_date", "Day averaged, Asia/Seoul (msurDt, YYYY-MM-DD)"),
        ] + statisticsAverages("daily")),
        RelationEntry("station_monthly_stats",
                      "One AirKorea station × KST month: the monthly means AirKorea publishes (ArpltnStatsSvc, of the realtime stream); NULL where it gave none", [
            ColumnEntry("station_name", "AirKorea station name (msrstnName; station.name)"),
            ColumnEntry("kst_month", "Month averaged, Asia/Seoul (msurMm, YYYY-MM)"),
        ] + statisticsAverages("monthly")),
        RelationEntry("pm_alert", "One AirKorea PM10 or PM2.5 alert (주의보 or 경보) of one 권역, from its issue to its clear", [
            ColumnEntry("district", "Province (시도) short name the alert is for (districtName), e.g. 서울"),
            ColumnEntry("area", "권역 within the province (moveName), e.g. 도심권; '' when the payload named none"),
            ColumnEntry("pollutant", "PM10 or PM2.5 (itemCode PM10 / PM25)"),
            ColumnEntry("level", "advisory (주의보) or warning (경보) (issueGbn)"),
            ColumnEntry("issued_at", "When the alert was issued, UTC ISO-8601"),
            ColumnEntry("issued_kst", "When the alert was issued (issueDate issueTime), \(alertKST)"),
            ColumnEntry("issue_value", "Concentration at the issue (issueVal)", unit: .microgramsPerCubicMetre, whose: airKorea),
            ColumnEntry("cleared_at", "When the alert was cleared, UTC ISO-8601; NULL while it is in force"),
            ColumnEntry("cleared_kst", "When the alert was cleared (clearDate clearTime), \(alertKST); NULL while in force"),
            ColumnEntry("clear_value", "Concentration at the clear (clearVal); NULL while in force", unit: .microgramsPerCubicMetre, whose: airKorea),
            ColumnEntry("data_date", "AirKorea's dataDate, as delivered"),
            ColumnEntry("sn", "AirKorea's serial number of the alert item (sn), as delivered"),
            payloadSHA256,
            revision,
        ]),
    ]
}
