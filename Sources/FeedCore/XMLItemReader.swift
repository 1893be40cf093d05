import CLibXML2
import Foundation
import Pipeline

/// What an XML document held outside its items: the root element and every leaf's text by
/// slash path (e.g. `response/header/resultCode`, `OpenAPI_ServiceResponse/cmmMsgHeader/returnReasonCode`).
public struct XMLEnvelope: Sendable {
    public var rootElement: String
    public var leaves: [String: String]
    public var itemCount: Int
}

/// A streaming reader for "flat item" XML documents (a root, some envelope leaves, and repeated
/// `<item>` elements whose children are simple text fields), built on libxml2's SAX2 push parser.
///
/// Memory stays flat whatever the document size: the file is read in 64 KiB chunks and each item
/// is handed to the caller and forgotten. Safety: no network access, any DOCTYPE is refused
/// (so no external entities and no entity expansion), and a document whose root element was not
/// closed (a truncated download) is an error even when libxml2 would recover.
public struct XMLItemReader: Sendable {
    public let schema: FieldSchema
    public let itemElement: String

    public init(schema: FieldSchema, itemElement: String = "item") {
        self.schema = schema
        self.itemElement = itemElement
    }

    /// Reads `file`, calling `onItem` for each item in document order.
    public func read(file: URL, onItem: (ItemFields) throws -> Void) throws -> XMLEnvelope {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw FeedError(.malformed, .terminal, "Cannot open the payload file.", context: file.path)
        }
        defer { try? handle.close() }
        return try read(context: file.lastPathComponent, onItem: onItem) {
            let chunk = handle.readData(ofLength: 64 * 1024)
            return chunk.isEmpty ? nil : chunk
        }
    }

    /// Reads a document held in memory (tests, small payloads).
    public func read(data: Data, context: String = "payload", onItem: (ItemFields) throws -> Void) throws -> XMLEnvelope {
        var offset = 0
        return try read(context: context, onItem: onItem) {
            guard offset < data.count else { return nil }
            let end = min(offset + 64 * 1024, data.count)
            defer { offset = end }
            return data.subdata(in: offset..<end)
        }
    }

    /// libxml2 sets up its global tables on first use, which is not safe from two threads at
    /// once (replay parses on its own thread; tests parse on many). Done once, before any parse.
    private static let libraryReady: Bool = {
        xmlInitParser()
        return true
    }()

    private func read(context: String, onItem: (ItemFields) throws -> Void, nextChunk: () throws -> Data?) throws -> XMLEnvelope {
        _ = Self.libraryReady
        return try withoutActuallyEscaping(onItem) { onItem in
            let state = SAXState(schema: schema, itemElement: itemElement, onItem: onItem)
            var handler = XMLItemReader.makeHandler()
            let unmanaged = Unmanaged.passRetained(state)
            defer { unmanaged.release() }
            guard let ctxt = xmlCreatePushParserCtxt(&handler, unmanaged.toOpaque(), nil, 0, nil) else {
                throw FeedError(.malformed, .terminal, "libxml2 could not create a parser.", context: context)
            }
            defer { xmlFreeParserCtxt(ctxt) }
            state.ctxt = ctxt
            xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue))

            while state.failure == nil, let chunk = try nextChunk() {
                let rc = chunk.withUnsafeBytes { raw -> Int32 in
                    xmlParseChunk(ctxt, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), 0)
                }
                if rc != 0 || state.stopped { break }
            }
            if state.failure == nil && !state.stopped { xmlParseChunk(ctxt, nil, 0, 1) }

            if let failure = state.failure { throw failure }
            if let message = state.fatalMessage {
                throw FeedError(.malformed, .terminal, "The XML is not well-formed: \(message)", context: context)
            }
            guard let root = state.rootName else {
                throw FeedError(.malformed, .terminal, "The payload is empty or not XML.", context: context)
            }
            guard state.rootClosed else {
                throw FeedError(.malformed, .terminal, "The XML document ends before its root element <\(root)> is closed (truncated?).", context: context)
            }
            return XMLEnvelope(rootElement: root, leaves: state.leaves, itemCount: state.itemCount)
        }
    }

    private static func makeHandler() -> xmlSAXHandler {
        var h = xmlSAXHandler()
        h.initialized = UInt32(XML_SAX2_MAGIC)
        h.startElementNs = { ctx, localname, _, _, _, _, _, _, _ in
            guard let ctx, let localname else { return }
            Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue().start(localname)
        }
        h.endElementNs = { ctx, localname, _, _ in
            guard let ctx, let localname else { return }
            Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue().end(localname)
        }
        h.characters = { ctx, ch, len in
            guard let ctx, let ch, len > 0 else { return }
            Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue().text(ch, Int(len))
        }
        h.cdataBlock = h.characters
        h.internalSubset = { ctx, _, _, _ in
            guard let ctx else { return }
            let state = Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue()
            state.fail(FeedError(.malformed, .terminal, "The payload declares a DOCTYPE; feeds never do, so it is refused (no entity expansion)."))
        }
        h.entityDecl = { ctx, _, _, _, _, _ in
            guard let ctx else { return }
            let state = Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue()
            state.fail(FeedError(.malformed, .terminal, "The payload declares entities; they are refused."))
        }
        h.serror = { ctx, error in
            guard let ctx, let error else { return }
            let state = Unmanaged<SAXState>.fromOpaque(ctx).takeUnretainedValue()
            if error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue, state.fatalMessage == nil {
                let text = error.pointee.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
                state.fatalMessage = "\(text) (line \(error.pointee.line))"
            }
        }
        return h
    }
}

/// Mutable parse state shared with the C callbacks through an opaque pointer.
private final class SAXState {
    let schema: FieldSchema
    let itemElement: [UInt8]
    let onItem: (ItemFields) throws -> Void
    var ctxt: xmlParserCtxtPtr?

    var depth = 0
    var itemDepth = -1
    var current: ItemFields?
    var fieldIndex = -1          // schema index of the open leaf inside an item, -1 if none/unknown
    var capturing = false
    var buffer: [UInt8] = []
    /// Bytes of text seen in the open field or leaf, and what it may hold (`FieldLimit`): text
    /// past the limit is counted, never buffered.
    var textLength = 0
    var textLimit = FieldLimit.standard
    var path: [String] = []      // element names outside items
    var leaves: [String: String] = [:]
    var rootName: String?
    var rootClosed = false
    var itemCount = 0
    var failure: Error?
    var fatalMessage: String?
    var stopped = false
    /// libxml2 interns element names per parse, so a name's pointer identifies it.
    var nameCache: [UnsafeRawPointer: Int] = [:]

    init(schema: FieldSchema, itemElement: String, onItem: @escaping (ItemFields) throws -> Void) {
        self.schema = schema
        self.itemElement = Array(itemElement.utf8)
        self.onItem = onItem
        buffer.reserveCapacity(256)
    }

    func fail(_ error: Error) {
        if failure == nil { failure = error }
        stopped = true
        if let ctxt { xmlStopParser(ctxt) }
    }

    private func fieldPosition(_ name: UnsafePointer<xmlChar>) -> Int {
        let key = UnsafeRawPointer(name)
        if let hit = nameCache[key] { return hit }
        let position = schema.position(of: String(cString: name)) ?? -1
        nameCache[key] = position
        return position
    }

    private func isItemElement(_ name: UnsafePointer<xmlChar>) -> Bool {
        var i = 0
        while i < itemElement.count {
            if name[i] != itemElement[i] { return false }
            i += 1
        }
        return name[i] == 0
    }

    /// Feeds nest four levels deep; anything past this is refused (libxml2's push parser has
    /// no depth limit of its own).
    static let maxDepth = 256

    func start(_ name: UnsafePointer<xmlChar>) {
        depth += 1
        if depth > Self.maxDepth {
            fail(FeedError(.malformed, .terminal, "The XML nests deeper than \(Self.maxDepth) levels; feeds never do, so it is refused."))
            return
        }
        if depth == 1 { rootName = String(cString: name) }
        if current != nil {
            if depth == itemDepth + 1 {
                fieldIndex = fieldPosition(name)
                buffer.removeAll(keepingCapacity: true)
                textLength = 0
                textLimit = fieldIndex >= 0 ? schema.limits[fieldIndex] : FieldLimit.standard
                capturing = true
            } else {
                capturing = false  // nested structure inside a field: ignored
            }
            return
        }
        if isItemElement(name) {
            itemDepth = depth
            current = ItemFields(schema: schema, position: itemCount)
            return
        }
        path.append(String(cString: name))
        buffer.removeAll(keepingCapacity: true)
        textLength = 0
        textLimit = FieldLimit.standard
        capturing = true
    }

    func end(_ name: UnsafePointer<xmlChar>) {
        defer { depth -= 1 }
        if depth == 1 { rootClosed = true }
        if current != nil {
            if depth == itemDepth {
                let item = current!
                current = nil
                itemDepth = -1
                itemCount += 1
                do { try onItem(item) } catch { fail(error) }
            } else if depth == itemDepth + 1 {
                if fieldIndex >= 0, capturing {
                    if textLength > textLimit {
                        current!.values[fieldIndex] = nil
                        current!.notes.append(FieldNote(field: schema.names[fieldIndex], kind: .tooLong(bytes: textLength, limit: textLimit)))
                    } else {
                        current!.values[fieldIndex] = String(decoding: buffer, as: UTF8.self)
                    }
                }
                capturing = false
                fieldIndex = -1
            }
            return
        }
        if capturing && textLength <= textLimit {  // an over-long envelope leaf reads as absent
            leaves[path.joined(separator: "/")] = String(decoding: buffer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        capturing = false
        if !path.isEmpty { path.removeLast() }
    }

    func text(_ ch: UnsafePointer<xmlChar>, _ count: Int) {
        guard capturing else { return }
        textLength += count
        if textLength <= textLimit { buffer.append(contentsOf: UnsafeBufferPointer(start: ch, count: count)) }
    }
}
