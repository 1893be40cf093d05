import Domain
import FeedCore
import Pipeline

/// What a decoder knows about the page besides its items: the request parameters that the
/// items themselves may omit. Built once per page from the `DecodeContext`.
struct PageContext: Sendable {
    /// `stationName` of a by-station request (items before `ver=1.4` omit it).
    var stationName: String?
    /// `sidoName` of a by-province request, unless it is `전국` (legacy items echo it empty).
    var sidoName: String?
    /// `tmX`/`tmY` of a nearby-stations request, TM 중부원점 metres.
    var queryPoint: (x: Double, y: Double)?

    init(_ context: DecodeContext) {
        stationName = WireValue.airKorea.text(context.parameter("stationName"))
        let sido = WireValue.airKorea.text(context.parameter("sidoName"))
        sidoName = sido == "전국" ? nil : sido
        if let x = WireValue.airKorea.text(context.parameter("tmX")).flatMap(Double.init),
           let y = WireValue.airKorea.text(context.parameter("tmY")).flatMap(Double.init), x.isFinite, y.isFinite {
            queryPoint = (x, y)
        }
    }
}

/// One AirKorea operation: where it lives, what parameters it takes, which item fields it
/// reads and how an item becomes a record. Adding an operation means adding one of these.
struct AirKoreaEndpoint: Sendable {
    /// The canonical operation name (`getCtprvnRltmMesureDnsty`).
    let operation: String
    /// The service it belongs to (`ArpltnInforInqireSvc`).
    let service: String
    /// Friendly names a pipeline may use instead (`realtime-by-province`).
    let aliases: [String]
    /// The parameters a pipeline may pass (besides the paging ones the feed sets itself).
    let parameters: [ParameterRule]
    /// Parameters added when the pipeline does not give them (the API requires them).
    let defaults: [QueryItem]
    /// The item fields read.
    let schema: FieldSchema
    /// One item → a record and diagnostics. Shared by the XML and JSON paths.
    let mapItem: @Sendable (ItemFields, PageContext) -> ItemOutcome

    /// The path below the base URL (`ArpltnInforInqireSvc/getCtprvnRltmMesureDnsty`).
    var path: String { "\(service)/\(operation)" }

    /// Whether `name` (canonical, path, or alias; case-insensitive) names this endpoint.
    func answers(to name: String) -> Bool {
        let wanted = name.lowercased()
        return wanted == operation.lowercased() || wanted == path.lowercased() || aliases.contains(wanted)
    }
}

// MARK: - The six operations

extension AirKoreaEndpoint {
    static let realtimeByStation = AirKoreaEndpoint(
        operation: "getMsrstnAcctoRltmMesureDnsty", service: "ArpltnInforInqireSvc",
        aliases: ["realtime-by-station"],
        parameters: [.stationName(required: true), .dataTerm, .ver],
        defaults: [QueryItem("dataTerm", "DAILY")],
        schema: RealtimeField.schema,
        mapItem: { item, page in RealtimeItemMapping.map(item, fallbackStation: page.stationName, fallbackProvince: nil) })

    static let realtimeByProvince = AirKoreaEndpoint(
        operation: "getCtprvnRltmMesureDnsty", service: "ArpltnInforInqireSvc",
        aliases: ["realtime-by-province"],
        parameters: [.sidoName, .ver],
        defaults: [],
        schema: RealtimeField.schema,
        mapItem: { item, page in RealtimeItemMapping.map(item, fallbackStation: nil, fallbackProvince: page.sidoName) })

    static let forecast = AirKoreaEndpoint(
        operation: "getMinuDustFrcstDspth", service: "ArpltnInforInqireSvc",
        aliases: ["forecast"],
        parameters: [.searchDate, .informCode, .ver],
        defaults: [],
        schema: ForecastField.schema,
        mapItem: { item, _ in ForecastItemMapping.map(item) })

    static let stations = AirKoreaEndpoint(
        operation: "getMsrstnList", service: "MsrstnInfoInqireSvc",
        aliases: ["stations"],
        parameters: [.text("addr"), .stationName(required: false), .ver],
        defaults: [],
        schema: StationField.schema,
        mapItem: { item, _ in StationItemMapping.map(item) })

    static let nearbyStations = AirKoreaEndpoint(
        operation: "getNearbyMsrstnList", service: "MsrstnInfoInqireSvc",
        aliases: ["nearby-stations"],
        parameters: [.tmCoordinate("tmX"), .tmCoordinate("tmY"), .ver],
        defaults: [],
        schema: NearbyStationField.schema,
        mapItem: { item, page in NearbyStationItemMapping.map(item, queryPoint: page.queryPoint) })

    static let tmCoordinates = AirKoreaEndpoint(
        operation: "getTMStdrCrdnt", service: "MsrstnInfoInqireSvc",
        aliases: ["tm-coordinates"],
        parameters: [.umdName, .ver],
        defaults: [],
        schema: TMCoordinateField.schema,
        mapItem: { item, _ in TMCoordinateItemMapping.map(item) })

    /// Every operation, in the order `AirKoreaFeed.operations` lists them.
    static let all: [AirKoreaEndpoint] = [realtimeByStation, realtimeByProvince, forecast, stations, nearbyStations, tmCoordinates]

    /// The endpoint `name` designates (canonical name, `Service/operation` path or alias).
    static func named(_ name: String) -> AirKoreaEndpoint? {
        let trimmed = String(Substring(name).trimmingASCIISpace())
        return all.first { $0.answers(to: trimmed) }
    }
}

// MARK: - Parameters

/// One parameter an operation accepts, with its check.
struct ParameterRule: Sendable {
    let name: String
    let required: Bool
    /// What is wrong with `value`, as the end of a sentence, or nil when it is fine.
    let problem: @Sendable (String) -> String?

    /// The 18 `sidoName` values the by-province operation accepts.
    static let provinces = ["전국", "서울", "부산", "대구", "인천", "광주", "대전", "울산", "경기", "강원",
                            "충북", "충남", "전북", "전남", "경북", "경남", "제주", "세종"]

    static func stationName(required: Bool) -> ParameterRule {
        ParameterRule(name: "stationName", required: required) { _ in nil }
    }

    static func text(_ name: String) -> ParameterRule {
        ParameterRule(name: name, required: false) { _ in nil }
    }

    static let sidoName = ParameterRule(name: "sidoName", required: true) { value in
        provinces.contains(value) ? nil : "must be one of \(provinces.joined(separator: ", "))"
    }

    static let searchDate = ParameterRule(name: "searchDate", required: true) { value in
        LocalDate(iso: value) == nil ? "must be a date written YYYY-MM-DD (e.g. 2023-06-03)" : nil
    }

    static let informCode = ParameterRule(name: "InformCode", required: false) { value in
        ["PM10", "PM25", "O3"].contains(value) ? nil : "must be PM10, PM25 or O3"
    }

    static let dataTerm = ParameterRule(name: "dataTerm", required: false) { value in
        ["DAILY", "MONTH", "3MONTH"].contains(value) ? nil : "must be DAILY, MONTH or 3MONTH"
    }

    static let ver = ParameterRule(name: "ver", required: false) { value in
        Double(value).map { $0 > 0 && $0 < 10 } == true ? nil : "must be a version number such as 1.0 or 1.4"
    }

    static let umdName = ParameterRule(name: "umdName", required: true) { _ in nil }

    static func tmCoordinate(_ name: String) -> ParameterRule {
        ParameterRule(name: name, required: true) { value in
            guard let number = Double(value), number.isFinite else {
                return "must be a number (TM 중부원점 metres, e.g. 244148.5), not WGS84 degrees or text"
            }
            return number.magnitude < 1000 ? "looks like WGS84 degrees; the API needs TM 중부원점 metres (e.g. 244148.5)" : nil
        }
    }
}

extension AirKoreaFeed {
    /// The operation whose `dataTerm` (DAILY, MONTH, 3MONTH) reaches back: what `feedline
    /// backfill` fetches missing station-hours with.
    public static var historyOperation: String { AirKoreaEndpoint.realtimeByStation.operation }
}
