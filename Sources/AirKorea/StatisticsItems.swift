import Domain
import FeedCore
import Foundation
import Pipeline

// MARK: - Records

/// One station's daily averages from `ArpltnStatsSvc/getMsrstnAcctoRDyrg` (측정소별 실시간
/// 일평균): means of the day's *realtime* hourly values as AirKorea computed them, not the
/// confirmed (확정) data, which no API serves. Produced by `AirKoreaFeed.decode`; stored in
/// `station_daily_stats` by `AirKoreaTables`.
///
/// Natural key: (station name, KST day).
public struct StationDailyStatistics: LoadableRecord {
    /// `msrstnName`, else the request's `msrstnName`.
    public var stationName: String
    /// `msurDt`: the KST day averaged.
    public var date: LocalDate
    /// PM10 and PM2.5 in µg/m³, O3, NO2, CO and SO2 in ppm; nil where AirKorea gave none.
    public var averages: PollutantValues<Double>

    public init(stationName: String, date: LocalDate, averages: PollutantValues<Double>) {
        self.stationName = stationName; self.date = date; self.averages = averages
    }
}

/// One station's monthly averages from `ArpltnStatsSvc/getMsrstnAcctoRMmrg` (측정소별 실시간
/// 월평균), of the realtime stream like the daily ones. Produced by `AirKoreaFeed.decode`; stored
/// in `station_monthly_stats` by `AirKoreaTables`.
///
/// Natural key: (station name, KST month).
public struct StationMonthlyStatistics: LoadableRecord {
    /// `msrstnName`, else the request's `msrstnName`.
    public var stationName: String
    /// `msurMm`: the month averaged.
    public var month: YearMonth
    /// PM10 and PM2.5 in µg/m³, O3, NO2, CO and SO2 in ppm; nil where AirKorea gave none.
    public var averages: PollutantValues<Double>

    public init(stationName: String, month: YearMonth, averages: PollutantValues<Double>) {
        self.stationName = stationName; self.month = month; self.averages = averages
    }
}

// MARK: - Wire fields

/// The item fields of the two station statistics operations, as on the wire: the daily one
/// dates its items with `msurDt` (`2024-03-01`), the monthly one with `msurMm` (`2024-02`).
/// Gases below 1 ppm come without a leading zero (`".0082"`).
enum StatisticsField: Int, WireFields {
    case msurDt, msurMm, msrstnName
    case pm10Value, pm25Value, o3Value, no2Value, coValue, so2Value

    static let schema = makeSchema()
}

// MARK: - Mapping

/// Turns statistics items into `StationDailyStatistics` / `StationMonthlyStatistics`.
///
/// Rules: the date (`msurDt`) or month (`msurMm`) and the station are required — an item
/// without a usable one is skipped with a diagnostic. Every value is optional: a missing one
/// (`""`, `"-"`, absent) is stored as NULL with a `missing-value` diagnostic, an unusable or
/// implausible one as NULL with its own; never 0. A day or month that starts more than a day
/// after the payload was fetched is refused (`future-time`).
enum StatisticsItemMapping {
    static func mapDaily(_ item: ItemFields, page: PageContext) -> ItemOutcome {
        let rawDate = item[StatisticsField.msurDt]
        let station = WireValue.airKorea.text(item[StatisticsField.msrstnName]) ?? page.msrstnName
        var reader = ItemDiagnostics(position: item.position, subject: station, qualifier: WireValue.airKorea.text(rawDate))
        guard let text = WireValue.airKorea.text(rawDate), let date = StatisticsCalendar.day(text) else {
            return reader.skip(.badStatisticsDate, field: "msurDt", value: rawDate,
                               "msurDt is not a day (YYYY-MM-DD); the item is skipped.")
        }
        guard let station else {
            return reader.skip(.missingStation, field: "msrstnName", value: nil,
                               "The item names no station (msrstnName) and the request names none to fall back on; the item is skipped.")
        }
        if let refusal = futureRefusal(start: HourSlot(date: date, hour: 0)!.start, page: page, reader: &reader, field: "msurDt", value: text) {
            return refusal
        }
        let averages = values(item, reader: &reader)
        return reader.keep(FeedRecord(StationDailyStatistics(stationName: station, date: date, averages: averages)))
    }

    static func mapMonthly(_ item: ItemFields, page: PageContext) -> ItemOutcome {
        let field = item[StatisticsField.msurMm] == nil && item[StatisticsField.msurDt] != nil ? StatisticsField.msurDt : .msurMm
        let rawMonth = item[field]
        let station = WireValue.airKorea.text(item[StatisticsField.msrstnName]) ?? page.msrstnName
        var reader = ItemDiagnostics(position: item.position, subject: station, qualifier: WireValue.airKorea.text(rawMonth))
        guard let text = WireValue.airKorea.text(rawMonth), let month = YearMonth(Substring(text).trimmingASCIISpace()) else {
            return reader.skip(.badStatisticsDate, field: field.wireName, value: rawMonth,
                               "\(field.wireName) is not a month (YYYY-MM); the item is skipped.")
        }
        guard let station else {
            return reader.skip(.missingStation, field: "msrstnName", value: nil,
                               "The item names no station (msrstnName) and the request names none to fall back on; the item is skipped.")
        }
        if let refusal = futureRefusal(start: HourSlot(date: month.firstDay, hour: 0)!.start, page: page, reader: &reader,
                                       field: field.wireName, value: text) {
            return refusal
        }
        let averages = values(item, reader: &reader)
        return reader.keep(FeedRecord(StationMonthlyStatistics(stationName: station, month: month, averages: averages)))
    }

    /// The six averages: PM in µg/m³, gases in ppm, each within the realtime plausible ranges.
    static func values(_ item: ItemFields, reader: inout ItemDiagnostics) -> PollutantValues<Double> {
        let pm = PlausibleRange.particulate, gas = PlausibleRange.gas
        return PollutantValues(
            pm10: reader.average(item[StatisticsField.pm10Value], StatisticsField.pm10Value, range: pm, unit: "µg/m³"),
            pm25: reader.average(item[StatisticsField.pm25Value], StatisticsField.pm25Value, range: pm, unit: "µg/m³"),
            o3: reader.average(item[StatisticsField.o3Value], StatisticsField.o3Value, range: gas, unit: "ppm"),
            no2: reader.average(item[StatisticsField.no2Value], StatisticsField.no2Value, range: gas, unit: "ppm"),
            co: reader.average(item[StatisticsField.coValue], StatisticsField.coValue, range: gas, unit: "ppm"),
            so2: reader.average(item[StatisticsField.so2Value], StatisticsField.so2Value, range: gas, unit: "ppm"))
    }

    /// The skip for a period starting more than `AirKoreaDecoder.futureAllowance` after the fetch.
    static func futureRefusal(start: Date, page: PageContext, reader: inout ItemDiagnostics, field: String, value: String) -> ItemOutcome? {
        guard let limit = page.futureLimit, start > limit else { return nil }
        return reader.skip(.futureTime, field: field, value: value,
                           "\(field) \(value) starts more than a day after the payload was fetched; the item is skipped.")
    }
}

extension ItemDiagnostics {
    /// A statistics average: like `number`, and also reading a decimal without its leading zero
    /// (`.0082`, as the statistics service writes gases). Missing (`""`, `"-"`, absent) is
    /// noted (`missing-value`) and nil, never 0.
    mutating func average<Field: WireFields>(_ raw: String?, _ field: Field, range: ClosedRange<Double>, unit: String) -> Double? {
        guard let text = WireValue.airKorea.present(raw) else {
            note(.missingValue, field: field.wireName, value: raw,
                 "\(field.wireName) is missing; it is stored as NULL, not 0.")
            return nil
        }
        let written = text.hasPrefix(".") ? "0" + text : text.hasPrefix("-.") ? "-0" + text.dropFirst() : String(text)
        guard Self.isPlainDecimal(written), let value = Double(written), value.isFinite else {
            note(.unparsableNumber, field: field.wireName, value: raw,
                 "\(field.wireName) is not a number; it is stored as NULL, not 0.")
            return nil
        }
        guard range.contains(value) else {
            note(.implausibleValue, field: field.wireName, value: raw,
                 "\(field.wireName) \(text) \(unit) is outside the plausible range \(Self.plain(range.lowerBound))…\(Self.plain(range.upperBound)) \(unit); it is stored as NULL.")
            return nil
        }
        return value
    }
}
