import Domain
import FeedCore
import Foundation
import Pipeline

// MARK: - Records

/// The level of a particulate-matter alert: 주의보 (advisory) or 경보 (warning).
public enum PMAlertLevel: String, Sendable, Hashable, CaseIterable {
    /// 주의보.
    case advisory
    /// 경보.
    case warning

    /// How AirKorea writes it (`issueGbn`).
    public var korean: String {
        switch self {
        case .advisory: "주의보"
        case .warning: "경보"
        }
    }

    /// Reads `issueGbn`: `주의보` or `경보`, whitespace anywhere ignored (`주의 보`, ` 경보 `); nil for
    /// anything else, including text that merely contains one of them (`주의보 해제`).
    public static func parse(_ text: some StringProtocol) -> PMAlertLevel? {
        let compact = withoutWhitespace(text)
        return allCases.first { $0.korean == compact }
    }
}

/// The pollutant a particulate-matter alert is for.
public enum AlertPollutant: String, Sendable, Hashable, CaseIterable {
    case pm10 = "PM10"
    case pm25 = "PM2.5"

    /// Reads `itemCode`: `PM10`, `PM25` or `PM2.5`, any case, whitespace ignored; nil otherwise.
    public static func parse(_ text: some StringProtocol) -> AlertPollutant? {
        switch withoutWhitespace(text).uppercased() {
        case "PM10": .pm10
        case "PM25", "PM2.5": .pm25
        default: nil
        }
    }
}

/// One particulate-matter alert (미세먼지/초미세먼지 주의보·경보) from
/// `UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo`: issued for a 권역 of a province, and cleared
/// later. A later payload with the clear fills in the same alert. Produced by
/// `AirKoreaFeed.decode`; stored in `pm_alert` by `AirKoreaTables`.
///
/// Natural key: (district, area, pollutant, level, issue instant) — what identifies an alert
/// in the issue and in the clear alike. (`sn` is kept, but whether it is stable is not
/// documented.)
public struct PMAlert: LoadableRecord {
    /// `districtName`: the province (시도) short name, e.g. 서울.
    public var district: String
    /// `moveName`: the 권역 within the district, e.g. 도심권; nil when the item names none.
    public var area: String?
    public var pollutant: AlertPollutant
    public var level: PMAlertLevel
    /// `issueDate` + `issueTime`.
    public var issued: KSTMinute
    /// `issueVal`: the concentration that triggered it, µg/m³.
    public var issueValue: Double?
    /// `clearDate` + `clearTime`; nil while the alert is in force.
    public var cleared: KSTMinute?
    /// `clearVal`: the concentration at the clear, µg/m³.
    public var clearValue: Double?
    /// `dataDate` as delivered.
    public var dataDate: String?
    /// `sn`, AirKorea's serial number of the item.
    public var serial: String?

    public init(district: String, area: String?, pollutant: AlertPollutant, level: PMAlertLevel, issued: KSTMinute,
                issueValue: Double?, cleared: KSTMinute?, clearValue: Double?, dataDate: String?, serial: String?) {
        self.district = district; self.area = area; self.pollutant = pollutant; self.level = level; self.issued = issued
        self.issueValue = issueValue; self.cleared = cleared; self.clearValue = clearValue; self.dataDate = dataDate; self.serial = serial
    }
}

/// `text` with every whitespace character removed.
func withoutWhitespace(_ text: some StringProtocol) -> String {
    var scalars = String.UnicodeScalarView()
    scalars.append(contentsOf: text.unicodeScalars.lazy.filter { !$0.properties.isWhitespace })
    return String(scalars)
}

// MARK: - Wire fields

/// The item fields of `UlfptcaAlarmInqireSvc/getUlfptcaAlarmInfo`, as on the wire.
enum PMAlertField: Int, WireFields {
    case sn, dataDate, districtName, moveName, itemCode, issueGbn
    case issueDate, issueTime, issueVal, clearDate, clearTime, clearVal

    static let schema = makeSchema()
}

// MARK: - Mapping

/// Turns alert items into `PMAlert`s.
///
/// Rules: the district, pollutant (`itemCode`), level (`issueGbn`) and issue time are required —
/// an item without a usable one is skipped with a diagnostic. A missing `moveName` is noted and
/// stored as no area. The clear is optional: no clear date and time means the alert is in force
/// (nothing noted); a half-given, unreadable, or earlier-than-issue clear is noted and stored as
/// not cleared. Values are µg/m³ within the particulate plausible range; a missing issue value
/// is noted, never 0. An alert issued more than a day after the fetch is refused (`future-time`).
enum PMAlertItemMapping {
    static func map(_ item: ItemFields, page: PageContext) -> ItemOutcome {
        let district = WireValue.airKorea.text(item[PMAlertField.districtName])
        let area = WireValue.airKorea.text(item[PMAlertField.moveName])
        let issueDate = WireValue.airKorea.text(item[PMAlertField.issueDate])
        let issueTime = WireValue.airKorea.text(item[PMAlertField.issueTime])
        var reader = ItemDiagnostics(position: item.position, subject: [district, area].compactMap { $0 }.joined(separator: " "),
                                     qualifier: [issueDate, issueTime].compactMap { $0 }.joined(separator: " "))
        guard let district else {
            return reader.skip(.missingValue, field: "districtName", value: item[PMAlertField.districtName],
                               "The alert names no district (districtName); it is skipped.")
        }
        guard let pollutant = WireValue.airKorea.text(item[PMAlertField.itemCode]).flatMap(AlertPollutant.parse) else {
            return reader.skip(.badAlertPollutant, field: "itemCode", value: item[PMAlertField.itemCode],
                               "itemCode is not PM10 or PM25; the alert is skipped.")
        }
        guard let level = WireValue.airKorea.text(item[PMAlertField.issueGbn]).flatMap(PMAlertLevel.parse) else {
            return reader.skip(.badAlertLevel, field: "issueGbn", value: item[PMAlertField.issueGbn],
                               "issueGbn is neither 주의보 (advisory) nor 경보 (warning); the alert is skipped.")
        }
        guard let issueDate, let issueTime, let issued = KSTMinute(date: issueDate, time: issueTime) else {
            return reader.skip(.badAlertTime, field: "issueDate/issueTime", value: "\(issueDate ?? "") \(issueTime ?? "")",
                               "issueDate and issueTime are not a date (YYYY-MM-DD) and a time (HH:MM); the alert is skipped.")
        }
        if let limit = page.futureLimit, issued.instant > limit {
            return reader.skip(.futureTime, field: "issueDate/issueTime", value: issued.label,
                               "The alert is issued at \(issued.label) KST, more than a day after the payload was fetched; it is skipped.")
        }
        if area == nil {
            reader.note(.missingValue, field: "moveName", value: item[PMAlertField.moveName],
                        "The alert names no 권역 (moveName); it is stored with no area.")
        }
        let range = PlausibleRange.particulate
        let issueValue = reader.number(item[PMAlertField.issueVal], PMAlertField.issueVal, range: range, unit: "µg/m³")
        if WireValue.airKorea.present(item[PMAlertField.issueVal]) == nil {
            reader.note(.missingValue, field: "issueVal", value: item[PMAlertField.issueVal],
                        "issueVal is missing; it is stored as NULL, not 0.")
        }
        let cleared = clear(item, issued: issued, page: page, reader: &reader)
        var clearValue: Double?
        if cleared != nil {
            clearValue = reader.number(item[PMAlertField.clearVal], PMAlertField.clearVal, range: range, unit: "µg/m³")
            if WireValue.airKorea.present(item[PMAlertField.clearVal]) == nil {
                reader.note(.missingValue, field: "clearVal", value: item[PMAlertField.clearVal],
                            "clearVal is missing for a cleared alert; it is stored as NULL, not 0.")
            }
        } else if WireValue.airKorea.present(item[PMAlertField.clearVal]) != nil {
            reader.note(.clearWithoutTime, field: "clearVal", value: item[PMAlertField.clearVal],
                        "clearVal is given but the alert has no usable clear time; the value is not stored.")
        }
        let alert = PMAlert(district: district, area: area, pollutant: pollutant, level: level, issued: issued,
                            issueValue: issueValue, cleared: cleared, clearValue: clearValue,
                            dataDate: WireValue.airKorea.text(item[PMAlertField.dataDate]), serial: WireValue.airKorea.text(item[PMAlertField.sn]))
        return reader.keep(FeedRecord(alert))
    }

    /// The clear, when the item gives a usable one.
    static func clear(_ item: ItemFields, issued: KSTMinute, page: PageContext, reader: inout ItemDiagnostics) -> KSTMinute? {
        let date = WireValue.airKorea.text(item[PMAlertField.clearDate])
        let time = WireValue.airKorea.text(item[PMAlertField.clearTime])
        switch (date, time) {
        case (nil, nil):
            return nil  // in force
        case let (date?, time?):
            guard let cleared = KSTMinute(date: date, time: time) else {
                reader.note(.badAlertTime, field: "clearDate/clearTime", value: "\(date) \(time)",
                            "clearDate and clearTime are not a date (YYYY-MM-DD) and a time (HH:MM); the alert is stored as not cleared.")
                return nil
            }
            guard cleared.instant >= issued.instant else {
                reader.note(.clearBeforeIssue, field: "clearDate/clearTime", value: cleared.label,
                            "The clear (\(cleared.label) KST) is before the issue (\(issued.label) KST); the alert is stored as not cleared.")
                return nil
            }
            if let limit = page.futureLimit, cleared.instant > limit {
                reader.note(.futureTime, field: "clearDate/clearTime", value: cleared.label,
                            "The clear (\(cleared.label) KST) is more than a day after the payload was fetched; the alert is stored as not cleared.")
                return nil
            }
            return cleared
        default:
            let (given, missing) = date == nil ? ("clearTime", "clearDate") : ("clearDate", "clearTime")
            reader.note(.clearWithoutTime, field: "clearDate/clearTime", value: date ?? time,
                        "\(given) is given without \(missing); the alert is stored as not cleared.")
            return nil
        }
    }
}
