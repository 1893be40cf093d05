import AirKorea
import CareerNet
import OpenAQ
import OpenWeather
import Pipeline
import Saramin

extension FeedSchema {
    /// What feedline's bundled feeds bring to a store, as the composition root registers them.
    public static let feedline = FeedSchema.merged([AirKoreaTables.schema, CareerNetTables.schema, SaraminTables.schema,
                                                    OpenWeatherTables.schema, OpenAQTables.schema])
}
