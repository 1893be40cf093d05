import FeedCore
import Pipeline

// MARK: - The fields each operation answers with

/// What each OpenWeather operation's items carry (`Feed.answerShape`), for schema drift: the
/// fields the decoders read (`AirPollutionMapping.schema`, `GeocodingDecoder.schema`), numbers as
/// JSON numbers. The fields the quirk fixtures send as strings (`main/aqi`, `components/co`,
/// `components/pm10`, `lat`), which the mappings read too, take either. Current weather is one
/// object, not items: it is not compared.
extension OpenWeatherEndpoint {
    static let airPollutionShape = AnswerShape(AirPollutionMapping.schema.names, kinds: .number, required: ["dt", "main/aqi"])
        .adding([AnswerField("main/aqi", [.number, .text], required: true), AnswerField("components/co", [.number, .text]),
                 AnswerField("components/pm10", [.number, .text])])

    static let geocodeShape = AnswerShape([
        AnswerField("name", .text, required: true), AnswerField("lat", [.number, .text], required: true),
        AnswerField("lon", .number, required: true), AnswerField("country", .text), AnswerField("state", .text),
        AnswerField("local_names/*", .text),
    ])

    /// The declared shape of `operation`'s items, by canonical operation name.
    static let answerShapes: [String: AnswerShape] = [
        airPollution.operation: airPollutionShape,
        airPollutionForecast.operation: airPollutionShape,
        airPollutionHistory.operation: airPollutionShape,
        geocode.operation: geocodeShape,
    ]
}

extension OpenWeatherFeed {
    public func answerShape(operation: String) -> AnswerShape? {
        OpenWeatherEndpoint.named(operation).flatMap { OpenWeatherEndpoint.answerShapes[$0.operation] }
    }
}
