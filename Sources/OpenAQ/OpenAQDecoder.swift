import Domain
import FeedCore
import Foundation
import Pipeline

/// Parses one OpenAQ v3 answer — a page `{"meta": {…, "found": …}, "results": […]}` or an error
/// body — read whole in one `JSONItemReader` pass before anything is delivered, so a cut-off or
/// error answer never leaves part of itself behind.
///
/// Locations are read as a tree of leaves (`OpenAQTree`): their `sensors[]` and
/// `instruments[]` are arrays inside items, which item readers do not descend into. The other
/// calls' results are flat items with nested objects, read as items of `results`.
struct OpenAQDecoder {
    /// Where the payload came from, for error messages (redacted URL or file name).
    let origin: String
    /// The HTTP status the payload came with, when known (archived live pages are 2xx).
    let httpStatus: Int?
    /// When the payload was fetched: a window is read no further than this.
    let fetchedAt: Date
    /// The id in the request's path (`/locations/{id}/…`, `/sensors/{id}/…`), else one named by
    /// the file or the pipeline (`OpenAQFeed.contextID`).
    let contextID: Int?
    /// The window a live `sensor-hours` page asked for, and whether it is the first page of it.
    let window: (window: OpenAQHoursWindow, firstPage: Bool)?

    /// The tree reader (no item arrays: every scalar is a leaf).
    static let treeReader = JSONItemReader(schema: FieldSchema([]), itemPaths: [])
    static let latestReader = JSONItemReader(schema: OpenAQMapping.latestSchema, itemPaths: ["results"])
    static let sensorsReader = JSONItemReader(schema: OpenAQMapping.sensorSchema, itemPaths: ["results"])
    static let hoursReader = JSONItemReader(schema: OpenAQMapping.hourlySchema, itemPaths: ["results"])

    func decode<Sink: RecordSink>(_ source: PayloadSource, answer: OpenAQEndpoint.Answer, into sink: inout Sink) throws -> PageSummary {
        switch answer {
        case .locations:
            let envelope = try read { try Self.treeReader.read(source, onItem: { _ in }) }
            let tree = OpenAQTree(envelope)
            try checkEnvelope(tree)
            guard !tree.isObject("results"), !tree.isLeaf("results") else { throw notAnArray() }
            let summary = summarise(tree, itemCount: tree.count("results"), into: &sink)
            try deliverLocations(tree, into: &sink)
            return summary
        case .sensors, .latest, .hours:
            let reader = answer == .sensors ? Self.sensorsReader : answer == .latest ? Self.latestReader : Self.hoursReader
            let page = try read { try reader.readPage(source) }
            sink.observe(page.envelope.census)
            let tree = OpenAQTree(page.envelope)
            try checkEnvelope(tree)
            guard page.envelope.itemArrays.contains("results") else { throw notAnArray() }
            // Hourly rows name no sensor: without one they cannot be placed, and nothing is delivered.
            if answer == .hours, contextID == nil, !page.elements.isEmpty {
                throw FeedError(.malformed, .terminal,
                                "The hours answer does not say which sensor it is for, and neither does a request: name the file …sensor-<id>… or pass sensors_id (replay --param sensors_id=<id>), so its \(page.elements.count) rows can be placed.",
                                context: origin)
            }
            let summary = summarise(tree, itemCount: page.envelope.itemCount, into: &sink)
            var items: [ItemFields] = []
            for element in page.elements {
                switch element {
                case .item(let item): items.append(item)
                case .notObject(let position): sink.diagnose(.notAnObject(position: position, noun: Self.noun(answer)))
                }
            }
            try deliver(items, answer: answer, into: &sink)
            return summary
        }
    }

    static func noun(_ answer: OpenAQEndpoint.Answer) -> String {
        switch answer {
        case .locations: "location"
        case .sensors: "sensor"
        case .latest: "latest"
        case .hours: "hour"
        }
    }

    // MARK: - Envelope

    /// Runs a reader, naming the payload in its errors.
    private func read<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch var error as FeedError {
            error.context = origin
            throw error
        }
    }

    private func notAnArray() -> FeedError {
        FeedError(.malformed, .terminal, "The answer's results is not an array: it is not an OpenAQ page.", context: origin)
    }

    /// Throws the typed error of an error answer, or `.malformed` for a document that is no
    /// OpenAQ page at all.
    private func checkEnvelope(_ tree: OpenAQTree) throws {
        let envelope = tree.envelope
        guard envelope.objects.contains("") else {
            // A top-level string is how some OpenAQ versions answer a 422.
            if let text = tree.value("") {
                throw OpenAQAPIError.error(status: httpStatus, text: text, validationItems: text.contains("loc") && text.contains("msg"), context: origin)
            }
            throw FeedError(.malformed, .terminal, "The JSON is not an object: it is not an OpenAQ answer.", context: origin)
        }
        let keys = envelope.rootKeys
        if !keys.contains("results") {
            if keys.contains("detail") || keys.contains("message") || keys.contains("error") {
                let (text, validation) = errorText(tree)
                throw OpenAQAPIError.error(status: httpStatus, text: text, validationItems: validation, context: origin)
            }
            throw FeedError(.malformed, .terminal, "The JSON has no results: it is not an OpenAQ page.", context: origin)
        }
        if let status = httpStatus, !(200..<300).contains(status) {
            throw OpenAQAPIError.error(status: status, text: errorText(tree).text, validationItems: false, context: origin)
        }
    }

    /// What an error body says: `detail` (a sentence, or `loc: msg` of each validation item),
    /// else `message`, else `error`; and whether it listed validation items.
    func errorText(_ tree: OpenAQTree) -> (text: String, validation: Bool) {
        let items = tree.count("detail")
        if items > 0 {
            let lines = (0..<items).map { n -> String in
                let loc = (0..<tree.count("detail/\(n)/loc")).compactMap { tree.value("detail/\(n)/loc/\($0)") }.joined(separator: ".")
                let msg = tree.value("detail/\(n)/msg") ?? "?"
                return loc.isEmpty ? msg : "\(loc): \(msg)"
            }
            return (lines.joined(separator: "; "), true)
        }
        for key in ["detail", "message", "error"] {
            if let text = WireValue.standard.text(tree.value(key)) { return (text, false) }
        }
        return ("", false)
    }

    /// The page summary from `meta` (`found` only a hint), noting a `found` that is neither a
    /// number nor `">N"`.
    private func summarise<Sink: RecordSink>(_ tree: OpenAQTree, itemCount: Int, into sink: inout Sink) -> PageSummary {
        let found = OpenAQFound(wire: tree.value("meta/found"))
        if case .unreadable(let raw) = found {
            sink.diagnose(Diagnostic(code: .openAQUnreadableFound, message: "meta.found is neither a number nor “>N”; it is ignored (it is only a hint).",
                                     location: "meta.found", value: raw))
        }
        let page = WireValue.standard.integer(tree.value("meta/page"))
        let limit = WireValue.standard.integer(tree.value("meta/limit"))
        return PageSummary(itemCount: itemCount, reportedTotal: found.reportedTotal, pageNo: page, numOfRows: limit.flatMap { $0 > 0 ? $0 : nil })
    }

    // MARK: - Results

    /// Each location, then its sensors, in answer order. A location repeated in the answer is
    /// skipped with its sensors; a sensor listed again (under another location) is skipped.
    private func deliverLocations<Sink: RecordSink>(_ tree: OpenAQTree, into sink: inout Sink) throws {
        var locations: [Int: Int] = [:]
        var sensors: [Int: String] = [:]
        for n in 0..<tree.count("results") {
            let prefix = "results/\(n)"
            guard tree.isObject(prefix) else {
                sink.diagnose(.notAnObject(position: n, noun: "location"))
                continue
            }
            let instruments = (0..<tree.count(prefix + "/instruments")).compactMap { WireValue.standard.text(tree.value("\(prefix)/instruments/\($0)/name")) }
            let location = OpenAQMapping.location(tree.fields(OpenAQMapping.locationSchema, at: prefix, position: n), instruments: instruments)
            guard let locationID = location.record?.as(OpenAQLocation.self)?.id else {
                try emit(location, into: &sink)
                continue
            }
            if let first = locations[locationID] {
                try emit(OpenAQMapping.duplicate(of: "location \(locationID)", firstIn: "location \(first)", position: n, noun: "location",
                                                 skipping: "later one is skipped with its sensors"), into: &sink)
                continue
            }
            locations[locationID] = n
            try emit(location, into: &sink)
            let noun = "location \(locationID) sensor"
            for k in 0..<tree.count(prefix + "/sensors") {
                let path = "\(prefix)/sensors/\(k)"
                guard tree.isObject(path) else {
                    sink.diagnose(.notAnObject(position: k, noun: noun))
                    continue
                }
                var outcome = OpenAQMapping.sensor(tree.fields(OpenAQMapping.sensorSchema, at: path, position: k), locationID: locationID, noun: noun)
                if let id = outcome.record?.as(OpenAQSensor.self)?.id {
                    if let first = sensors[id] {
                        let note = OpenAQMapping.duplicate(of: "sensor \(id)", firstIn: first, position: k, noun: noun, skipping: "later one is skipped")
                        outcome = ItemOutcome(record: nil, diagnostics: outcome.diagnostics + note.diagnostics)
                    } else {
                        sensors[id] = "\(noun) \(k)"
                    }
                }
                try emit(outcome, into: &sink)
            }
        }
    }

    private func deliver<Sink: RecordSink>(_ items: [ItemFields], answer: OpenAQEndpoint.Answer, into sink: inout Sink) throws {
        let noun = Self.noun(answer)
        switch answer {
        case .locations:
            return
        case .sensors:
            let outcomes = items.map { (position: $0.position, noun: noun, outcome: OpenAQMapping.sensor($0, locationID: contextID)) }
            for outcome in OpenAQMapping.firstOfEachKey(outcomes, key: { $0.as(OpenAQSensor.self)?.id }, describe: { "sensor \($0)" }) {
                try emit(outcome, into: &sink)
            }
        case .latest:
            let outcomes = items.map { (position: $0.position, noun: noun, outcome: OpenAQMapping.latest($0, locationID: contextID)) }
            let unique = OpenAQMapping.firstOfEachKey(outcomes, key: { record -> String? in
                record.as(OpenAQLatest.self).map { "sensor \($0.sensorID) at \(OpenAQTime.format($0.datetime.utc))" }
            }, describe: { $0 })
            for outcome in unique { try emit(outcome, into: &sink) }
        case .hours:
            guard let sensorID = contextID else { return }  // an empty page: nothing to place
            if let window, window.firstPage {
                try sink.accept(FeedRecord(OpenAQHoursScan(sensorID: sensorID, window: window.window,
                                                           scannedThrough: OpenAQHoursWindow.scannedThrough(windowEnd: window.window.to, fetchedAt: fetchedAt))))
            }
            let outcomes = items.map { (position: $0.position, noun: noun, outcome: OpenAQMapping.hour($0, sensorID: sensorID)) }
            let unique = OpenAQMapping.firstOfEachKey(outcomes, key: { $0.as(OpenAQHourly.self)?.periodTo.utc }, describe: { "the hour ending \(OpenAQTime.format($0))" })
            for outcome in unique { try emit(outcome, into: &sink) }
        }
    }

    private func emit<Sink: RecordSink>(_ outcome: ItemOutcome, into sink: inout Sink) throws {
        for diagnostic in outcome.diagnostics { sink.diagnose(diagnostic) }
        if let record = outcome.record { try sink.accept(record) }
    }
}
