import Domain
import FeedCore
import Foundation
import Pipeline

/// Reads one Geocoding API answer (`/geo/1.0/direct`): a JSON array of places,
/// `[{"name":…,"local_names":{"ko":…,…},"lat":…,"lon":…,"country":…,"state":…}]`, empty when
/// nothing matched — or an OpenWeather error object (`{"cod":"400","message":"Nothing to
/// geocode"}`), raised as its typed error. Read whole before anything is delivered, so a cut-off
/// or error answer leaves nothing behind.
///
/// Rules: the first place is the answer (feedline asks with `limit=1`; a longer list, from a
/// file fetched otherwise, keeps its first and says so). It is stored under the `q` it answers
/// (`Query`). `lat` and `lon` must both be usable: a place without them is not stored, and so
/// not bookmarked — the next run asks for it again. `name` and `country` are noted when
/// missing; `state` and `local_names.ko` are often absent and simply missing then. An empty list
/// stores nothing and names the `q` that found nothing (`place-not-found`).
struct GeocodingDecoder {
    /// Where the payload came from, for error messages (redacted URL or file name).
    let origin: String

    /// Where the `q` an answer is for comes from.
    enum Query: Equatable {
        /// The request's `q`: what was asked.
        case asked(String)
        /// No request (a fixture, a bare file): the `q` given as fallback — the pipeline's
        /// first or `replay --param q=…`. A pipeline lists several names, so it is taken only
        /// when the answer names that place.
        case fallback(String)
        /// No request and no `q` given.
        case unknown
    }

    /// The fields of one place; `local_names` holds dozens of languages, only `ko` is read.
    static let schema = FieldSchema(["name", "local_names/ko", "lat", "lon", "country", "state"])
    /// The places are the items of the top-level array; an error object's `cod` and `message`
    /// are envelope leaves.
    static let reader = JSONItemReader(schema: schema, itemPaths: [""])

    func decode<Sink: RecordSink>(_ source: PayloadSource, query: Query, resolvedAt: Date, into sink: inout Sink) throws -> PageSummary {
        let page = try Self.reader.readPage(source, context: origin)
        let envelope = page.envelope
        sink.observe(envelope.census)
        let leaf = { (path: String) -> String? in envelope.leaves[path] ?? nil }
        if envelope.objects.contains("") {
            if OpenWeatherAPIError.isError(cod: leaf("cod")) || (leaf("message") != nil && !envelope.rootKeys.contains("list")) {
                throw OpenWeatherAPIError.error(cod: leaf("cod"), message: leaf("message"), context: origin)
            }
            let holds = envelope.rootKeys.contains("list") ? "an air pollution list"
                : envelope.objects.contains("main") ? "current weather" : "a JSON object"
            throw FeedError(.malformed, .terminal,
                            "The request was for geocoding, which answers with a JSON array of places, but the answer holds \(holds).",
                            context: origin)
        }
        guard envelope.itemArrays.contains("") else {
            throw FeedError(.malformed, .terminal, "The JSON is neither an array of places nor an OpenWeather error: it is not a geocoding answer.",
                            context: origin)
        }
        var items: [ItemFields] = []
        for element in page.elements {
            switch element {
            case .item(let item): items.append(item)
            case .notObject(let position): sink.diagnose(.notAnObject(position: position, noun: "place"))
            }
        }
        guard let first = items.first else {
            if envelope.itemCount == 0 { sink.diagnose(Self.notFound(query)) }
            return PageSummary(itemCount: envelope.itemCount)
        }
        if items.count > 1 {
            sink.diagnose(Diagnostic(code: .extraPlaces,
                                     message: "The answer lists \(items.count) places; the first, the best match, is kept (geocode asks with limit=1) and \(items.count == 2 ? "the other is" : "the other \(items.count - 1) are") left aside.",
                                     location: "place \(items[1].position)", value: String(items.count)))
        }
        let outcome = GeocodingMapping.map(first, query: query, resolvedAt: resolvedAt)
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        if let record = outcome.record { try sink.accept(record) }
        return PageSummary(itemCount: envelope.itemCount)
    }

    /// The diagnostic for an empty answer, naming the `q` as far as it is known (its value only
    /// when the request says it: a fallback `q` may be another name of the pipeline's).
    static func notFound(_ query: Query) -> Diagnostic {
        let stored = "the geocoding answer is an empty list, so no place is stored"
        switch query {
        case .asked(let q):
            let hint = q.contains(",") ? "check the spelling" : "check the spelling, or add a country code (“\(q),KR”)"
            return Diagnostic(code: .placeNotFound, message: "Nothing matched q “\(q)”: \(stored) and a later run asks again; \(hint).",
                              location: "q", value: q)
        case .fallback(let q):
            return Diagnostic(code: .placeNotFound,
                              message: "Nothing matched the q this answer is for: \(stored). The file came without its request; the q given for it (the pipeline's first, or --param q) is “\(q)”.",
                              location: "q")
        case .unknown:
            return Diagnostic(code: .placeNotFound,
                              message: "Nothing matched the q this answer is for: \(stored). The file came without its request and no q was given, so which name found nothing is not known.",
                              location: "q")
        }
    }
}

/// Turns the first place of a geocoding answer into a `GeocodedPlace`.
enum GeocodingMapping {
    static func map(_ item: ItemFields, query: GeocodingDecoder.Query, resolvedAt: Date) -> ItemOutcome {
        var reader = FieldValues(notes: ItemDiagnostics(position: item.position, noun: "place"))
        for diagnostic in item.readerDiagnostics(noun: "place") { reader.notes.add(diagnostic) }
        let name = reader.text(item["name"]), localNameKo = reader.text(item["local_names/ko"])
        let country = reader.text(item["country"]), state = reader.text(item["state"])

        let q: String
        switch query {
        case .asked(let asked):
            q = asked
        case .fallback(let given) where names(given, name: name, localName: localNameKo):
            q = given
        case .fallback, .unknown:
            guard let name else {
                return reader.notes.skip(.missingValue, field: "name", value: nil,
                                         "The answer came without its request and names no place, so the q it answers is not known; it is not stored.")
            }
            q = country.map { "\(name),\($0)" } ?? name
            reader.notes.subject = q
            let why = if case .fallback(let given) = query {
                "The answer came without its request and names \(name), not the q “\(given)” given for it"
            } else {
                "The answer came without its request and no q was given"
            }
            reader.notes.note(.queryFromAnswer, field: nil, value: q, "\(why); it is stored under “\(q)”, its own name and country.")
        }
        reader.notes.subject = q

        let latitude = coordinate(item["lat"], field: "lat", in: -90...90, query: q, notes: &reader.notes)
        let longitude = coordinate(item["lon"], field: "lon", in: -180...180, query: q, notes: &reader.notes)
        guard let latitude, let longitude else { return ItemOutcome(record: nil, diagnostics: reader.notes.diagnostics) }
        if name == nil { reader.notes.note(.missingValue, field: "name", value: item["name"], "name is missing; it is stored as missing.") }
        if country == nil { reader.notes.note(.missingValue, field: "country", value: item["country"], "country is missing; it is stored as missing.") }
        let place = GeocodedPlace(query: q, name: name, localNameKo: localNameKo, country: country, state: state,
                                  latitude: latitude, longitude: longitude, resolvedAt: resolvedAt)
        return reader.notes.keep(FeedRecord(place))
    }

    /// `lat` or `lon` as degrees in `range`, or nil with a diagnostic saying the place is not
    /// stored (and so asked for again).
    static func coordinate(_ raw: String?, field: String, in range: ClosedRange<Double>, query: String,
                           notes: inout ItemDiagnostics) -> Double? {
        let consequence = "the place cannot be located, so it is not stored and a later run asks for “\(query)” again"
        guard let text = WireValue.standard.text(raw) else {
            notes.note(.missingValue, field: field, value: raw, "\(field) is missing: \(consequence).")
            return nil
        }
        guard let value = WireValue.decimal(text) else {
            notes.note(.unparsableNumber, field: field, value: raw, "\(field) is not a number: \(consequence).")
            return nil
        }
        guard range.contains(value) else {
            notes.note(.outOfRange, field: field, value: raw,
                       "\(field) \(text)° is not in \(FieldValues.shortest(range.lowerBound))…\(FieldValues.shortest(range.upperBound))°: \(consequence).")
            return nil
        }
        return value
    }

    /// Whether the answer names the place `q` asks for: the part of `q` before its first comma
    /// equals `name` or the Korean name, compared by letters and digits only, ignoring case
    /// (`jongno gu` names `Jongno-gu`; `종로구` names the place whose `local_names.ko` it is).
    static func names(_ q: String, name: String?, localName: String?) -> Bool {
        func key(_ text: some StringProtocol) -> String {
            String(String.UnicodeScalarView(text.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }))
        }
        let wanted = key(q.split(separator: ",", omittingEmptySubsequences: false).first ?? "")
        guard !wanted.isEmpty else { return false }
        return [name, localName].compactMap { $0 }.contains { key($0) == wanted }
    }
}
