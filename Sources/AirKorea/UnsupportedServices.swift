import FeedCore
import Pipeline

/// An AirKorea operation feedline knows by sight but does not read. A payload of one is
/// refused with an error that names the service ("Unsupported AirKorea service …"), never
/// decoded as if it were one of the operations feedline reads (a realtime page whose every
/// item is skipped).
///
/// Each is recognised by item fields no supported operation carries (`signature`, any one of
/// them filled in the payload's first bytes). Sources: the CAI and key-statistics fields from
/// the feed notes (airkorea.md §6); the 시군구 averages from the legacy sample
/// (`airkorea-legacy-sido-city-avg.json`); the 시도 averages and the weekly forecast from public
/// client code that reads them.
struct UnsupportedAirKoreaOperation: Sendable, Equatable {
    /// The service (`RltmKhaiInfoSvc`).
    let service: String
    /// The operation (`getMsrstnKhaiRltmDnsty`).
    let operation: String
    /// What it serves, in a few words.
    let what: String
    /// Item fields only this operation carries.
    let signature: [String]

    /// `Service/operation`.
    var path: String { "\(service)/\(operation)" }

    static let all: [UnsupportedAirKoreaOperation] = [
        .init(service: "RltmKhaiInfoSvc", operation: "getMsrstnKhaiRltmDnsty",
              what: "realtime CAI by station (caiValue, caiGrade, caiItem)", signature: ["caiValue", "caiGrade", "caiItem"]),
        .init(service: "UserSportSvc", operation: "getSvckeyDalyStats",
              what: "data.go.kr's daily call counts of a key (conectDe, conectOprtinNm, conectCo)",
              signature: ["conectDe", "conectOprtinNm", "conectCo"]),
        .init(service: "ArpltnStatsSvc", operation: "getCtprvnMesureSidoLIst",
              what: "realtime averages by 시군구 (cityName)", signature: ["cityName", "cityNameEng"]),
        .init(service: "ArpltnStatsSvc", operation: "getCtprvnMesureLIst",
              what: "realtime averages by 시도, one column per province (dataGubun, seoul, busan …)",
              signature: ["dataGubun", "seoul", "busan", "daegu", "gyeonggi"]),
        .init(service: "ArpltnInforInqireSvc", operation: "getMinuDustWeekFrcstDspth",
              what: "the weekly PM2.5 forecast (frcstOneDt, frcstOneCn …)", signature: ["frcstOneDt", "frcstOneCn", "presnatnDt"]),
    ]

    /// The operation `name` designates (operation or `Service/operation`, any case), if it is one
    /// of these.
    static func named(_ name: String) -> UnsupportedAirKoreaOperation? {
        let wanted = String(Substring(name).trimmingASCIISpace()).lowercased()
        return all.first { $0.operation.lowercased() == wanted || $0.path.lowercased() == wanted }
    }

    /// The error for a payload of this operation: terminal (the same payload will never load).
    func payloadError(context: String?) -> FeedError {
        FeedError(.unrecognised, .terminal,
                  "Unsupported AirKorea service \(path): the payload holds \(what), which feedline does not read; nothing of it is loaded.",
                  context: context)
    }

    /// The error for a pipeline that asks for this operation.
    var requestError: FeedError {
        FeedError(.invalidRequest, .terminal,
                  "Unsupported AirKorea service \(path) (\(what)): feedline does not read this operation; use one of \(AirKoreaEndpoint.summary).")
    }
}

extension AirKoreaEndpoint {
    /// `realtime-by-station (getMsrstnAcctoRltmMesureDnsty), …`: the supported operations for messages.
    static var summary: String {
        all.map { "\($0.aliases.first ?? $0.operation) (\($0.operation))" }.joined(separator: ", ")
    }
}
