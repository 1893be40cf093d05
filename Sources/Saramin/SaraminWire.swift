import FeedCore
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Pipeline

// MARK: - One job, whatever the format

/// A Saramin job as read from the wire, before mapping: JSON objects and XML elements alike.
///
/// JSON scalars (strings, numbers, booleans) become `.text`; `null` is absent. An XML element
/// with neither attributes nor child elements is `.text`; otherwise an `.object` whose keys
/// are its attributes and child elements, with its own text under `#text` — so
/// `<location code="101010">서울 &gt; 강남구</location>` and
/// `"location":{"code":"101010","name":"서울 > 강남구"}` answer the same questions.
indirect enum WireNode: Sendable {
    case text(String)
    case object([String: WireNode])
    case list([WireNode])
    /// A value the reader changed or refused (over its length limit: nil; NULs removed: the
    /// rest), with the note the mapping turns into a diagnostic.
    case flagged(String?, FieldNote)

    /// The key under which an XML element's own text is kept.
    static let textKey = "#text"

    /// The child `key` of an object (the first element of a list for lists).
    subscript(_ key: String) -> WireNode? {
        switch self {
        case .object(let members): return members[key]
        case .list(let nodes): return nodes.first?[key]
        case .text, .flagged: return nil
        }
    }

    /// The node's text: a scalar's value, an element's own text; nil for objects without text.
    var text: String? {
        switch self {
        case .text(let value): return value
        case .object(let members): return members[Self.textKey]?.text
        case .list(let nodes): return nodes.first?.text
        case .flagged(let value, _): return value
        }
    }

    /// Every note of a flagged value in this node, with the slash path that leads to it
    /// (`position/title`), in a stable order.
    func flags(under path: String = "") -> [(path: String, note: FieldNote)] {
        switch self {
        case .text: return []
        case .flagged(_, let note): return [(path.isEmpty ? note.field : path, note)]
        case .list(let nodes): return nodes.flatMap { $0.flags(under: path) }
        case .object(let members):
            return members.keys.sorted().flatMap { key in
                members[key]!.flags(under: key == Self.textKey ? path : (path.isEmpty ? key : "\(path)/\(key)"))
            }
        }
    }

    /// A text value held to the standard field limit, NULs removed, flagged when changed.
    static func bounded(_ text: String, field: String) -> WireNode {
        let (value, note) = JSONPayload.bounded(text, field: field, limit: FieldLimit.standard)
        return note.map { .flagged(value, $0) } ?? .text(text)
    }

    /// The elements of a list, or the node itself.
    var elements: [WireNode] {
        if case .list(let nodes) = self { return nodes }
        return [self]
    }

    /// A JSON value as a node; nil for `null` and values of no JSON type.
    static func json(_ value: Any?, key: String = "") -> WireNode? {
        switch value {
        case let object as [String: Any]:
            var members: [String: WireNode] = [:]
            for (key, member) in object { if let node = json(member, key: key) { members[key] = node } }
            return .object(members)
        case let array as [Any]:
            return .list(array.compactMap { json($0, key: key) })
        default:
            return JSONPayload.scalar(value).map { bounded($0, field: key) }
        }
    }
}

// MARK: - Streaming XML

/// What a Saramin XML document held besides its jobs.
struct SaraminXMLEnvelope {
    /// The root element (`job-search` for a result).
    var rootElement: String
    /// `jobs` as a node without its `job` children (count/start/total as attributes or elements).
    var jobs: WireNode?
    /// Every other child of the root, as a node (error bodies: `code`, `message`, …).
    var others: [String: WireNode]
    /// The root element itself, without the jobs already handed out.
    var root: WireNode?
    var jobCount: Int
}

/// Reads a Saramin XML document job by job with Foundation's SAX `XMLParser` over a stream, so
/// memory holds one job at a time. A DOCTYPE is refused (no entity expansion), and a document
/// whose root element was not closed (a truncated download) is an error even when the parser
/// reports success.
struct SaraminXMLReader {
    func read(file: URL, context: String, onJob: (WireNode) throws -> Void) throws -> SaraminXMLEnvelope {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw FeedError(.malformed, .terminal, "Cannot open the payload file.", context: context)
        }
        let head = handle.readData(ofLength: 4096)
        try? handle.close()
        if String(decoding: head, as: UTF8.self).range(of: "<!DOCTYPE", options: .caseInsensitive) != nil {
            throw FeedError(.malformed, .terminal, "The payload declares a DOCTYPE; Saramin never does, so it is refused (no entity expansion).",
                            context: context)
        }
        guard let stream = InputStream(url: file) else {
            throw FeedError(.malformed, .terminal, "Cannot open the payload file.", context: context)
        }
        return try withoutActuallyEscaping(onJob) { onJob in
            let builder = SaraminXMLBuilder(onJob: onJob)
            let parser = XMLParser(stream: stream)
            parser.shouldResolveExternalEntities = false
            parser.delegate = builder
            let ok = parser.parse()
            if let failure = builder.failure { throw failure }
            guard ok else {
                let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "unknown error"
                throw FeedError(.malformed, .terminal, "The XML is not well-formed: \(reason) (line \(parser.lineNumber)).", context: context)
            }
            guard let root = builder.rootName else {
                throw FeedError(.malformed, .terminal, "The payload is empty or not XML.", context: context)
            }
            guard builder.rootClosed else {
                throw FeedError(.malformed, .terminal, "The XML document ends before its root element <\(root)> is closed (truncated?).",
                                context: context)
            }
            return SaraminXMLEnvelope(rootElement: root, jobs: builder.jobsNode, others: builder.others, root: builder.rootNode,
                                      jobCount: builder.jobCount)
        }
    }
}

/// Builds one node per element, handing each finished `<job>` to the caller and forgetting it.
private final class SaraminXMLBuilder: NSObject, XMLParserDelegate {
    /// An element being read: its name, attributes, children and text so far.
    struct Open {
        var name: String
        var members: [String: WireNode] = [:]
        var hasChildren = false
        var text = ""
        /// UTF-8 bytes of text seen; past the field limit they are counted, not kept.
        var textBytes = 0
    }

    let onJob: (WireNode) throws -> Void
    var stack: [Open] = []
    var rootName: String?
    var rootClosed = false
    var jobsNode: WireNode?
    var rootNode: WireNode?
    var others: [String: WireNode] = [:]
    var jobCount = 0
    var failure: Error?

    init(onJob: @escaping (WireNode) throws -> Void) {
        self.onJob = onJob
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if rootName == nil { rootName = elementName }
        var open = Open(name: elementName)
        for (key, value) in attributes { open.members[key] = .text(value) }
        if !stack.isEmpty { stack[stack.count - 1].hasChildren = true }
        stack.append(open)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        append(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        append(String(decoding: CDATABlock, as: UTF8.self))
    }

    private func append(_ string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].textBytes += string.utf8.count
        if stack[stack.count - 1].textBytes <= FieldLimit.standard { stack[stack.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let open = stack.popLast() else { return }
        let node: WireNode
        if open.textBytes > FieldLimit.standard {
            node = .flagged(nil, FieldNote(field: open.name, kind: .tooLong(bytes: open.textBytes, limit: FieldLimit.standard)))
        } else if open.members.isEmpty && !open.hasChildren {
            node = .text(open.text)
        } else {
            var members = open.members
            let text = open.text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { members[WireNode.textKey] = .text(open.text) }
            node = .object(members)
        }
        if stack.isEmpty {
            rootClosed = true
            rootNode = node
            if open.name == "jobs" { jobsNode = node }
            return
        }
        let parentName = stack[stack.count - 1].name
        if open.name == "job" && parentName == "jobs" {
            jobCount += 1
            do { try onJob(node) } catch {
                failure = error
                parser.abortParsing()
            }
            return
        }
        if open.name == "jobs" && stack.count == 1 {
            jobsNode = node
            return
        }
        if stack.count == 1 { others[open.name] = node }
        // Repeated children become a list, in document order.
        switch stack[stack.count - 1].members[open.name] {
        case nil: stack[stack.count - 1].members[open.name] = node
        case .list(let nodes)?: stack[stack.count - 1].members[open.name] = .list(nodes + [node])
        case let existing?: stack[stack.count - 1].members[open.name] = .list([existing, node])
        }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        failure = FeedError(.malformed, .terminal, "The payload declares entities; they are refused.")
        parser.abortParsing()
    }
}

// MARK: - Raw strings

/// The raw-string rules of Saramin: values are strings (some numbers), text may arrive
/// HTML-escaped (`서울 &gt; 강남구`), and `""` or `null` mean missing.
enum SaraminText {
    /// The value trimmed and unescaped, or nil when missing.
    static func value(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed != "null" else { return nil }
        return unescape(trimmed)
    }

    /// A comma-joined list split into entries (trimmed, unescaped, empties dropped, order kept).
    static func list(_ raw: String?) -> [String] {
        guard let text = value(raw) else { return [] }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// `text` with the HTML entities Saramin leaves in its text decoded: `&gt;`, `&lt;`,
    /// `&amp;`, `&quot;`, `&#39;`, `&apos;` and numeric references. Repeated escaping
    /// (`&amp;gt;`) is undone too.
    static func unescape(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var current = text
        for _ in 0..<3 {
            let next = unescapeOnce(current)
            if next == current { break }
            current = next
        }
        return current
    }

    private static let named: [String: String] = ["gt": ">", "lt": "<", "amp": "&", "quot": "\"", "apos": "'", "nbsp": " "]

    private static func unescapeOnce(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            if let semicolon = rest[afterAmp...].prefix(10).firstIndex(of: ";") {
                let entity = rest[afterAmp..<semicolon]
                if let replacement = decode(entity) {
                    out += replacement
                    rest = rest[rest.index(after: semicolon)...]
                    continue
                }
            }
            out += "&"
            rest = rest[afterAmp...]
        }
        return out + rest
    }

    private static func decode(_ entity: Substring) -> String? {
        if let named = named[String(entity)] { return named }
        guard entity.first == "#" else { return nil }
        let digits = entity.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits)
        }
        return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
    }
}
