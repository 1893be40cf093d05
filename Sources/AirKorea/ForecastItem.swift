import Domain
import FeedCore
import Pipeline

/// The item fields of `ArpltnInforInqireSvc/getMinuDustFrcstDspth`, as on the wire. (The
/// data.go.kr table misspells `informOverall` as `infornOverall`; the payload uses
/// `informOverall`. Legacy `f_data_time*` fields are not read.)
enum ForecastField: Int, WireFields {
    case dataTime, informCode, informData, informGrade, informOverall, informCause, actionKnack
    case imageUrl1, imageUrl2, imageUrl3, imageUrl4, imageUrl5, imageUrl6, imageUrl7, imageUrl8, imageUrl9

    /// The overview, cause, per-region grades and advice are free text (64 KiB each).
    static let schema = makeSchema(prose: [.informOverall, .informCause, .informGrade, .actionKnack])
    static let images: [ForecastField] = [.imageUrl1, .imageUrl2, .imageUrl3, .imageUrl4, .imageUrl5,
                                          .imageUrl6, .imageUrl7, .imageUrl8, .imageUrl9]
}

/// Turns forecast items into `Forecast`s. Every release is kept (the same `informCode` and
/// `informData` appear once per release, 05/11/17/23시); choosing the newest is the transform
/// stage's job.
enum ForecastItemMapping {
    static func map(_ item: ItemFields) -> ItemOutcome {
        let code = WireValue.airKorea.text(item[ForecastField.informCode])
        let released = WireValue.airKorea.text(item[ForecastField.dataTime])
        var reader = ItemDiagnostics(position: item.position, subject: code, qualifier: released)

        guard let released, let release = parseRelease(released) else {
            return reader.skip(.badDataTime, field: "dataTime", value: item[ForecastField.dataTime],
                               "dataTime is not a forecast release label (YYYY-MM-DD HH시 발표); the item is skipped.")
        }
        guard let code else {
            return reader.skip(.missingInformCode, field: "informCode", value: nil,
                               "The forecast item has no informCode; it is skipped.")
        }
        guard let dayText = WireValue.airKorea.text(item[ForecastField.informData]), let forecastDate = LocalDate(iso: dayText) else {
            return reader.skip(.badForecastDate, field: "informData", value: item[ForecastField.informData],
                               "informData is not a date (YYYY-MM-DD); the item is skipped.")
        }
        let forecast = Forecast(
            informCode: code,
            forecastDate: forecastDate,
            releaseDate: release.date,
            releaseHour: release.hour,
            overall: WireValue.airKorea.prose(item[ForecastField.informOverall]),
            cause: WireValue.airKorea.prose(item[ForecastField.informCause]),
            actionKnack: WireValue.airKorea.prose(item[ForecastField.actionKnack]),
            imageURLs: ForecastField.images.map { imageURL(item[$0]) },
            regionGrades: regionGrades(item[ForecastField.informGrade], reader: &reader))
        return reader.keep(FeedRecord(forecast))
    }

    /// `2023-06-03 23시 발표` → (2023-06-03, 23). Spaces are optional around the hour.
    static func parseRelease(_ label: String) -> (date: LocalDate, hour: Int)? {
        let text = Substring(label).trimmingASCIISpace()
        guard text.utf8.count >= 10, let date = LocalDate(iso: text.prefix(10)) else { return nil }
        let rest = text.dropFirst(10).trimmingASCIISpace()
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard (1...2).contains(digits.count), let hour = Int(digits), (0...23).contains(hour),
              rest.dropFirst(digits.count).hasPrefix("시") else { return nil }
        return (date, hour)
    }

    /// An image URL, or nil when missing or a legacy placeholder with an empty id (`...?atch_id=`).
    static func imageURL(_ raw: String?) -> String? {
        guard let text = WireValue.airKorea.text(raw) else { return nil }
        if text.hasSuffix("=") { return nil }
        return text
    }

    /// `서울 : 보통,제주 : 보통,…` → one row per region, whitespace-tolerant; empty → no rows.
    static func regionGrades(_ raw: String?, reader: inout ItemDiagnostics) -> [ForecastRegionGrade] {
        guard let text = WireValue.airKorea.present(raw) else { return [] }
        var grades: [ForecastRegionGrade] = []
        for part in text.split(separator: ",") {
            let entry = part.trimmingASCIISpace()
            if entry.isEmpty { continue }
            guard let colon = entry.firstIndex(of: ":") else {
                reader.note(.badRegionGrade, field: "informGrade", value: String(entry),
                            "An informGrade entry is not \"region : grade\"; that entry is skipped.")
                continue
            }
            let region = entry[..<colon].trimmingASCIISpace()
            let grade = entry[entry.index(after: colon)...].trimmingASCIISpace()
            guard !region.isEmpty, !grade.isEmpty else {
                reader.note(.badRegionGrade, field: "informGrade", value: String(entry),
                            "An informGrade entry lacks its region or its grade; that entry is skipped.")
                continue
            }
            grades.append(ForecastRegionGrade(region: String(region), gradeText: String(grade)))
        }
        return grades
    }
}
