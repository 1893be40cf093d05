import FeedCore
import Pipeline

// MARK: - The fields each operation answers with

/// What each AirKorea operation's items carry (`Feed.answerShape`), for schema drift: the wire
/// field sets the decoder reads (`RealtimeField`, `ForecastField`, …), every one a string (AirKorea
/// sends numbers as text), none required but the fields that say what an item is; plus the echo
/// fields the legacy JSON list (`{"list":[…]}`) repeats in every item, which nothing reads.
extension AirKoreaEndpoint {
    /// The declared shape of `operation`'s items, by canonical operation name.
    static let answerShapes: [String: AnswerShape] = [
        realtimeByStation.operation: AnswerShape(RealtimeField.schema.names, kinds: .text, required: ["dataTime"])
            .adding(legacyEcho),
        realtimeByProvince.operation: AnswerShape(RealtimeField.schema.names, kinds: .text, required: ["dataTime", "stationName"])
            .adding(legacyEcho + [AnswerField("dataTerm", .text), AnswerField("ver", .text)]),
        forecast.operation: AnswerShape(ForecastField.schema.names, kinds: .text, required: ["informCode", "dataTime"])
            .adding(legacyEcho + [AnswerField("searchDate", .text)]),
        stations.operation: AnswerShape(StationField.schema.names, kinds: .text, required: ["stationName"])
            .adding([AnswerField("item", .text)]),
        nearbyStations.operation: AnswerShape(NearbyStationField.schema.names, kinds: .text, required: ["stationName"])
            .adding([AnswerField("tm", .number)]),
        tmCoordinates.operation: AnswerShape(TMCoordinateField.schema.names, kinds: .text, required: ["umdName"]),
        stationDailyStatistics.operation: AnswerShape(StatisticsField.schema.names, kinds: .text, required: ["msurDt"]),
        stationMonthlyStatistics.operation: AnswerShape(StatisticsField.schema.names, kinds: .text, required: ["msurMm"]),
        pmAlerts.operation: AnswerShape(PMAlertField.schema.names, kinds: .text, required: ["districtName", "issueDate"]),
    ]

    /// Fields the legacy JSON list echoes into each item (request parameters, paging, result).
    static let legacyEcho: [AnswerField] = [
        AnswerField("_returnType", .text), AnswerField("numOfRows", .text), AnswerField("pageNo", .text),
        AnswerField("resultCode", .text), AnswerField("resultMsg", .text), AnswerField("serviceKey", .text),
        AnswerField("totalCount", .text), AnswerField("rnum", .number),
    ]
}

extension AirKoreaFeed {
    public func answerShape(operation: String) -> AnswerShape? {
        AirKoreaEndpoint.named(operation).flatMap { AirKoreaEndpoint.answerShapes[$0.operation] }
    }
}
