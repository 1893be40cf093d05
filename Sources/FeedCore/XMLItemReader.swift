import CLibXML2
import Foundation
import Pipeline

/// What an XML document held outside its items: the root element and every leaf's text by
/// slash path (e.g. `response/header/resultCode`, `OpenAPI_ServiceResponse/cmmMsgHeader/returnReasonCode`).
public struct XMLEnvelope: Sendable {
    public var rootElement: String
    public var leaves: [String: String]
    public var itemCount: Int
    /// Which parser read the document to its end (or to its error).
    public var parser: XMLParserKind = .libxml2
    /// The fields the items carried and their kinds, for schema-drift detection.
    public var census = FieldCensus(format: .xml)
}

/// The parsers behind `XMLItemReader`.
public enum XMLParserKind: Sendable, Equatable {
    /// The reader's own scanner (`XMLScanner`), for the plain UTF-8 XML feeds answer with.
    case scanner
    /// libxml2's SAX2 push parser: everything else, and every document that is not well-formed.
    case libxml2
}

/// A streaming reader for "item" XML documents (a root, some envelope leaves, and repeated
/// `<item>` elements whose children are text fields): the plain UTF-8 XML feeds answer with is
/// read by `XMLScanner`, everything else (and every document that is not well-formed) by
/// libxml2's SAX2 push parser, so errors are always libxml2's.
/// Fields nested deeper, and attributes, are read when the schema names them by path
/// (`position/location/code`, see `FieldSchema`); envelope attributes are leaves like child
/// elements (`job-search/jobs/total`).
///
/// Memory stays flat whatever the document size: a file up to 9 MB is read whole (a page is
/// about 1 MB), a larger one in 64 KiB chunks, and each item is handed to the caller and forgotten. Safety: no network access, any DOCTYPE is refused
/// (so no external entities and no entity expansion), and a document whose root element was not
/// closed (a truncated download) is an error even when libxml2 would recover.
public struct XMLItemReader: Sendable {
    public let schema: FieldSchema
    public let itemElement: String
    /// The parser tried first: `.scanner` (the default) hands what it does not read to libxml2;
    /// `.libxml2` uses libxml2 alone (tests compare the two).
    public let parser: XMLParserKind

    public init(schema: FieldSchema, itemElement: String = "item", parser: XMLParserKind = .scanner) {
        self.schema = schema
        self.itemElement = itemElement
        self.parser = parser
    }

    /// Reads a payload's bytes when they are at hand, else its file (`read(file:onItem:)`).
    public func read(_ source: PayloadSource, onItem: (ItemFields) throws -> Void) throws -> XMLEnvelope {
        guard let bytes = source.bytes else { return try read(file: source.file, onItem: onItem) }
        return try read(data: bytes, context: source.file.lastPathComponent, onItem: onItem)
    }

    /// Reads `file`, calling `onItem` for each item in document order. A file up to
    /// `XMLScanner.maximumDocument` bytes is read whole and scanned; a larger one is streamed
    /// through libxml2 in 64 KiB chunks.
    public func read(file: URL, onItem: (ItemFields) throws -> Void) throws -> XMLEnvelope {
        guard let handle = FileHandle(forReadingAtPath: file.path) else {
            throw FeedError(.malformed, .terminal, "Cannot open the payload file.", context: file.path)
        }
        defer { try? handle.close() }
        var info = stat()
        if parser == .scanner, fstat(handle.fileDescriptor, &info) == 0, info.st_size <= XMLScanner.maximumDocument,
           let whole = try Self.readWhole(handle.fileDescriptor, size: Int(info.st_size), file: file) {
            return try read(data: whole, context: file.lastPathComponent, onItem: onItem)
        }
        // Larger than the scanner takes (or grown since `fstat`): streamed from the start.
        guard lseek(handle.fileDescriptor, 0, SEEK_SET) == 0 else {
            throw FeedError(.malformed, .terminal, "Cannot read the payload file: \(String(cString: strerror(errno))).", context: file.path)
        }
        return try parseWithLibxml2(context: file.lastPathComponent, skippingItems: 0, onItem: onItem) {
            let chunk = handle.readData(ofLength: 64 * 1024)
            return chunk.isEmpty ? nil : chunk
        }
    }

    /// The whole of a `size`-byte file in one buffer, read with as few `read` calls as the kernel
    /// allows (`FileHandle.readToEnd` reads 4 KiB at a time and grows its buffer as it goes).
    /// Nil when the file turns out longer than `size` (it grew while being read).
    static func readWhole(_ fd: Int32, size: Int, file: URL) throws -> Data? {
        guard size > 0 else { return Data() }
        // One byte more than expected, to notice a file that grew.
        guard let buffer = malloc(size + 1) else {
            throw FeedError(.malformed, .terminal, "Cannot read the payload file: out of memory.", context: file.path)
        }
        var filled = 0
        while filled <= size {
            let count = Glibc.read(fd, buffer + filled, size + 1 - filled)
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                free(buffer)
                throw FeedError(.malformed, .terminal, "Cannot read the payload file: \(reason).", context: file.path)
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= size else { free(buffer); return nil }
        return Data(bytesNoCopy: buffer, count: filled, deallocator: .free)
    }

    /// Reads a document held in memory, calling `onItem` for each item: the scanner reads it
    /// when it can, libxml2 otherwise (from the start, without delivering the items the scanner
    /// already delivered).
    public func read(data: Data, context: String = "payload", onItem: (ItemFields) throws -> Void) throws -> XMLEnvelope {
        guard parser == .scanner else { return try parseWithLibxml2(data: data, context: context, skippingItems: 0, onItem: onItem) }
        let scanned = try data.withUnsafeBytes { raw in
            try withState(onItem: onItem, skippingItems: 0) { state -> Scanned in
                switch XMLScanner.scan(raw.bindMemory(to: UInt8.self), into: state) {
                case .finished: .read(try Self.envelope(state, context: context, parser: .scanner))
                case .handOver: .handedOver(afterItems: state.pointee.itemCount)
                }
            }
        }
        switch scanned {
        case .read(let envelope): return envelope
        case .handedOver(let delivered): return try parseWithLibxml2(data: data, context: context, skippingItems: delivered, onItem: onItem)
        }
    }

    private enum Scanned {
        case read(XMLEnvelope)
        case handedOver(afterItems: Int)
    }

    private func parseWithLibxml2(data: Data, context: String, skippingItems skip: Int, onItem: (ItemFields) throws -> Void) throws -> XMLEnvelope {
        var offset = data.startIndex
        return try parseWithLibxml2(context: context, skippingItems: skip, onItem: onItem) {
            guard offset < data.endIndex else { return nil }
            let end = data.index(offset, offsetBy: 64 * 1024, limitedBy: data.endIndex) ?? data.endIndex
            defer { offset = end }
            return data[offset..<end]
        }
    }

    /// The root element of `file` when the file does not end (trailing whitespace aside) with
    /// its closing tag: a cut-off download, which libxml2 may word as another error ("Extra
    /// content at the end of the document"). Nil when the root is closed or there is none.
    /// - Parameter head: the first bytes of `file`, when already read.
    public static func unclosedRoot(of file: URL, head: Data? = nil) -> String? {
        unclosedRoot(of: PayloadSource(file: file), head: head)
    }

    /// `unclosedRoot(of:head:)` of a payload's bytes or file.
    public static func unclosedRoot(of source: PayloadSource, head: Data? = nil) -> String? {
        guard let head = head ?? (try? source.head(4096, origin: "")), let root = rootElement(of: head),
              let last = source.tail(512) else { return nil }
        let tail = [UInt8](last)
        let end = tail.lastIndex { !isSpace($0) }.map { $0 + 1 } ?? 0
        return tail[..<end].reversed().starts(with: "</\(root)>".utf8.reversed()) ? nil : root
    }

    /// The name of the first element in `head`, skipping the XML declaration, comments and
    /// processing instructions.
    public static func rootElement(of head: Data) -> String? {
        var index = head.startIndex
        while let open = head[index...].firstIndex(of: UInt8(ascii: "<")) {
            let next = head.index(after: open)
            guard next < head.endIndex else { return nil }
            if head[next] == UInt8(ascii: "?") || head[next] == UInt8(ascii: "!") {
                index = next
                continue
            }
            let name = head[next...].prefix { byte in
                !isSpace(byte) && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "/")
            }
            return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }

    /// libxml2 sets up its global tables on first use, which is not safe from two threads at
    /// once (replay parses on its own thread; tests parse on many). Done once, before any parse;
    /// so is dropping the copies of errors libxml2 would print to standard error.
    private static let libraryReady: Bool = {
        xmlInitParser()
        feedline_xml_silence_generic_errors()
        return true
    }()

    /// Runs `body` with a fresh parse state behind a pointer (the callbacks mutate it through
    /// `pointee`, which, unlike a class's stored properties, carries no dynamic exclusivity checks).
    private func withState<Result>(onItem: (ItemFields) throws -> Void, skippingItems skip: Int,
                                   _ body: (UnsafeMutablePointer<SAXState>) throws -> Result) throws -> Result {
        try withoutActuallyEscaping(onItem) { onItem in
            let state = UnsafeMutablePointer<SAXState>.allocate(capacity: 1)
            state.initialize(to: SAXState(schema: schema, itemElement: itemElement, skippingItems: skip, onItem: onItem))
            defer { state.deinitialize(count: 1); state.deallocate() }
            return try body(state)
        }
    }

    /// The document's envelope once it has been read, or the reason it is refused.
    private static func envelope(_ state: UnsafeMutablePointer<SAXState>, context: String, parser: XMLParserKind) throws -> XMLEnvelope {
        if let failure = state.pointee.failure { throw failure }
        if let message = state.pointee.fatalMessage {
            throw FeedError(.malformed, .terminal, "The XML is not well-formed: \(message)", context: context)
        }
        guard let root = state.pointee.rootName else {
            throw FeedError(.malformed, .terminal, "The payload is empty or not XML.", context: context)
        }
        guard state.pointee.rootClosed else {
            throw FeedError(.malformed, .terminal, "The XML document ends before its root element <\(root)> is closed (truncated?).", context: context)
        }
        return XMLEnvelope(rootElement: root, leaves: state.pointee.leaves, itemCount: state.pointee.itemCount, parser: parser,
                           census: state.pointee.census.census())
    }

    private func parseWithLibxml2(context: String, skippingItems skip: Int, onItem: (ItemFields) throws -> Void,
                                  nextChunk: () throws -> Data?) throws -> XMLEnvelope {
        _ = Self.libraryReady
        return try withState(onItem: onItem, skippingItems: skip) { state in
            var handler = XMLItemReader.makeHandler()
            guard let ctxt = xmlCreatePushParserCtxt(&handler, UnsafeMutableRawPointer(state), nil, 0, nil) else {
                throw FeedError(.malformed, .terminal, "libxml2 could not create a parser.", context: context)
            }
            defer { xmlFreeParserCtxt(ctxt); state.pointee.ctxt = nil }
            state.pointee.ctxt = ctxt
            xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue))

            var declared: DeclaredEncodingCheck?
            var isFirstChunk = true
            var exhausted = false
            while state.pointee.failure == nil {
                guard let chunk = try nextChunk() else { exhausted = true; break }
                if isFirstChunk { declared = DeclaredEncodingCheck(head: chunk); isFirstChunk = false }
                declared?.feed(chunk)
                let rc = chunk.withUnsafeBytes { raw -> Int32 in
                    xmlParseChunk(ctxt, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count), 0)
                }
                if rc != 0 || state.pointee.stopped { break }
            }
            if state.pointee.failure == nil && !state.pointee.stopped { xmlParseChunk(ctxt, nil, 0, 1) }
            // A document that declares a legacy encoding but holds UTF-8 text fails in libxml2's
            // conversion (or loads garbled): the whole of it is checked, and that is the error.
            if declared != nil {
                while !exhausted, let rest = try nextChunk() { declared?.feed(rest) }
                if let problem = declared?.misdeclaration { throw FeedError(.malformed, .terminal, problem, context: context) }
            }
            return try Self.envelope(state, context: context, parser: .libxml2)
        }
    }

    private static func makeHandler() -> xmlSAXHandler {
        var h = xmlSAXHandler()
        h.initialized = UInt32(XML_SAX2_MAGIC)
        h.startElementNs = { ctx, localname, _, _, _, _, attributeCount, _, attributes in
            guard let ctx, let localname else { return }
            let state = ctx.assumingMemoryBound(to: SAXState.self)
            let name = SAXState.bytes(localname)
            guard attributeCount > 0, let attributes else { return state.pointee.start(name, attributes: UnsafeBufferPointer(start: nil, count: 0)) }
            // libxml2 gives five pointers per attribute: local name, prefix, URI, value start, value end.
            let list = (0..<Int(attributeCount)).compactMap { a -> XMLAttribute? in
                guard let local = attributes[a * 5], let start = attributes[a * 5 + 3], let end = attributes[a * 5 + 4] else { return nil }
                return XMLAttribute(name: SAXState.bytes(local), value: UnsafeBufferPointer(start: start, count: end - start))
            }
            list.withUnsafeBufferPointer { state.pointee.start(name, attributes: $0) }
        }
        h.endElementNs = { ctx, _, _, _ in
            guard let ctx else { return }
            ctx.assumingMemoryBound(to: SAXState.self).pointee.end()
        }
        h.characters = { ctx, ch, len in
            guard let ctx, let ch, len > 0 else { return }
            ctx.assumingMemoryBound(to: SAXState.self).pointee.text(ch, Int(len))
        }
        h.cdataBlock = h.characters
        h.internalSubset = { ctx, _, _, _ in
            guard let ctx else { return }
            ctx.assumingMemoryBound(to: SAXState.self).pointee.fail(FeedError(.malformed, .terminal, "The payload declares a DOCTYPE; feeds never do, so it is refused (no entity expansion)."))
        }
        h.entityDecl = { ctx, _, _, _, _, _ in
            guard let ctx else { return }
            ctx.assumingMemoryBound(to: SAXState.self).pointee.fail(FeedError(.malformed, .terminal, "The payload declares entities; they are refused."))
        }
        h.serror = { ctx, error in
            guard let ctx, let error else { return }
            let state = ctx.assumingMemoryBound(to: SAXState.self)
            if error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue, state.pointee.fatalMessage == nil {
                let text = error.pointee.message.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown error"
                state.pointee.fatalMessage = "\(text) (line \(error.pointee.line))"
            }
        }
        return h
    }
}

/// Mutable parse state shared with the C callbacks through an opaque pointer to it.
struct SAXState {
    /// An element open inside the current item.
    struct OpenField {
        /// Schema position of the element's own text, -1 if none.
        var index: Int
        /// The element's slash path below the item when the schema is nested and a field may lie
        /// below it; nil otherwise.
        var path: String?
        /// Whether a child element started: the element's own text is then not a value.
        var hasChildren = false
        /// The census index of an element outside the schema (-1: none, or not counted).
        var extra = -1
    }

    let schema: FieldSchema
    let itemElement: [UInt8]
    /// Items already delivered by an earlier parse of the same document (the scanner's, before
    /// it handed over): read again but not delivered twice.
    let skippingItems: Int
    let onItem: (ItemFields) throws -> Void
    var ctxt: xmlParserCtxtPtr?

    var depth = 0
    var itemDepth = -1
    /// The fields of the item being read (`inItem`); one value reused for every item.
    var fields: ItemFields
    var inItem = false
    /// The elements open inside the current item, outermost first.
    var openFields: [OpenField] = []
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
    /// The item members seen so far, in the order they first came, with their schema positions.
    /// Items of a page list their members in one order, so the next member is almost always the
    /// one after the last (`nextMember`): one short comparison instead of a hash lookup per element.
    var members: [(name: [UInt8], position: Int, extra: Int)] = []
    var nextMember = 0
    /// The fields items carried (`FieldCensus`).
    var census: FieldCensusBuilder

    init(schema: FieldSchema, itemElement: String, skippingItems: Int, onItem: @escaping (ItemFields) throws -> Void) {
        self.schema = schema
        self.itemElement = Array(itemElement.utf8)
        self.skippingItems = skippingItems
        self.onItem = onItem
        fields = ItemFields(schema: schema, position: 0)
        census = FieldCensusBuilder(schema: schema, format: .xml)
        buffer.reserveCapacity(256)
        openFields.reserveCapacity(8)
    }

    mutating func fail(_ error: Error) {
        if failure == nil { failure = error }
        stopped = true
        if let ctxt { xmlStopParser(ctxt) }
    }

    /// A NUL-terminated name from libxml2 as bytes.
    static func bytes(_ name: UnsafePointer<xmlChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: name, count: strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)))
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func same(_ known: [UInt8], _ name: UnsafeBufferPointer<UInt8>) -> Bool {
        known.count == name.count && known.withUnsafeBufferPointer { memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }
    }

    /// The schema position of item member `name` (-1 outside the schema) and its census index
    /// (-1 for schema members).
    private mutating func fieldPosition(_ name: UnsafeBufferPointer<UInt8>) -> (position: Int, extra: Int) {
        if nextMember < members.count, Self.same(members[nextMember].name, name) {
            nextMember += 1
            return (members[nextMember - 1].position, members[nextMember - 1].extra)
        }
        if let known = members.firstIndex(where: { Self.same($0.name, name) }) {
            nextMember = known + 1
            return (members[known].position, members[known].extra)
        }
        let text = Self.text(name)
        let position = schema.position(of: text) ?? -1
        let extra = position < 0 ? census.extra(text) : -1
        members.append((Array(name), position, extra))
        nextMember = members.count
        return (position, extra)
    }

    private func isItemElement(_ name: UnsafeBufferPointer<UInt8>) -> Bool { Self.same(itemElement, name) }

    /// Feeds nest four levels deep; anything past this is refused (libxml2's push parser has
    /// no depth limit of its own).
    static let maxDepth = 256

    mutating func start(_ name: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<XMLAttribute>) {
        depth += 1
        if depth > Self.maxDepth {
            fail(FeedError(.malformed, .terminal, "The XML nests deeper than \(Self.maxDepth) levels; feeds never do, so it is refused."))
            return
        }
        if depth == 1 { rootName = Self.text(name) }
        if inItem {
            startField(name, attributes: attributes)
            return
        }
        if isItemElement(name) {
            itemDepth = depth
            nextMember = 0
            fields.reset(position: itemCount)
            census.items += 1
            inItem = true
            if !attributes.isEmpty { readAttributes(attributes, under: nil) }
            return
        }
        path.append(Self.text(name))
        if !attributes.isEmpty { readEnvelopeAttributes(attributes) }
        buffer.removeAll(keepingCapacity: true)
        textLength = 0
        textLimit = FieldLimit.standard
        capturing = true
    }

    /// An element inside an item: a member (`depth == itemDepth + 1`, looked up by its interned
    /// name) or, for nested schemas, an element further down (looked up by its path).
    private mutating func startField(_ name: UnsafeBufferPointer<UInt8>, attributes: UnsafeBufferPointer<XMLAttribute>) {
        var field = OpenField(index: -1, path: nil)
        if openFields.isEmpty {
            (field.index, field.extra) = fieldPosition(name)
            if schema.isNested {
                let member = Self.text(name)
                if schema.isContainer(member) { field.path = member; field.extra = census.extra(member) }
            }
        } else {
            openFields[openFields.count - 1].hasChildren = true
            if let parent = openFields[openFields.count - 1].path {
                let path = parent + "/" + Self.text(name)
                field.index = schema.position(of: path) ?? -1
                if schema.isContainer(path) { field.path = path }
                if field.index < 0 { field.extra = census.extra(path) }
            }
        }
        openFields.append(field)
        buffer.removeAll(keepingCapacity: true)
        textLength = 0
        textLimit = field.index >= 0 ? schema.limit(at: field.index) : FieldLimit.standard
        // An element outside the schema is read only the first time, for the census's sample.
        capturing = field.index >= 0 || (field.extra >= 0 && field.path == nil && census.isNew(extra: field.extra))
        if !attributes.isEmpty, let path = field.path { readAttributes(attributes, under: path) }
    }

    /// Attribute values of an element in an item that the schema names (`path/attribute`, or
    /// `attribute` on the item element itself).
    private mutating func readAttributes(_ attributes: UnsafeBufferPointer<XMLAttribute>, under path: String?) {
        for attribute in attributes {
            let local = Self.text(attribute.name)
            let name = path.map { $0 + "/" + local } ?? local
            guard let i = schema.position(of: name) else { continue }
            let length = attribute.value.count
            census.saw(slot: i, kind: .text, value: nil)
            if length > schema.limit(at: i) {
                fields.values[i] = nil
                fields.notes.append(FieldNote(field: name, kind: .tooLong(bytes: length, limit: schema.limit(at: i))))
            } else {
                fields.values[i] = Self.attributeValue(attribute.value)
            }
        }
    }

    /// Attributes of an envelope element, as leaves beside its child elements.
    private mutating func readEnvelopeAttributes(_ attributes: UnsafeBufferPointer<XMLAttribute>) {
        let prefix = path.joined(separator: "/")
        for attribute in attributes where attribute.value.count <= FieldLimit.standard {  // an over-long leaf reads as absent
            leaves[prefix + "/" + Self.text(attribute.name)] = Self.attributeValue(attribute.value)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// An attribute's text. Without entity substitution libxml2 hands an `&` in an attribute on
    /// as `&#38;` (so a tree builder can decode it again); here it is the `&` it stands for.
    /// (The scanner leaves values with `&` to libxml2.)
    private static func attributeValue(_ value: UnsafeBufferPointer<UInt8>) -> String {
        let text = Self.text(value)
        return text.contains("&#38;") ? text.replacingOccurrences(of: "&#38;", with: "&") : text
    }

    mutating func end() {
        defer { depth -= 1 }
        if depth == 1 { rootClosed = true }
        if inItem {
            if depth == itemDepth {
                inItem = false
                itemDepth = -1
                itemCount += 1
                openFields.removeAll(keepingCapacity: true)
                if itemCount > skippingItems {
                    do { try onItem(fields) } catch { fail(error) }
                }
            } else if let field = openFields.popLast() {
                let kind: FieldKinds = field.hasChildren ? .object : .text
                if field.index >= 0 {
                    census.saw(slot: field.index, kind: kind,
                               value: !field.hasChildren && capturing && textLength <= textLimit && census.wantsSample(slot: field.index, kind: kind)
                                   ? String(decoding: buffer, as: UTF8.self) : nil)
                } else if field.extra >= 0 {
                    census.saw(extra: field.extra, kind: field.path != nil ? .object : kind,
                               value: !field.hasChildren && capturing && textLength <= textLimit ? String(decoding: buffer, as: UTF8.self) : nil)
                }
                if field.index >= 0, capturing, !field.hasChildren {
                    if textLength > textLimit {
                        fields.values[field.index] = nil
                        fields.notes.append(FieldNote(field: schema.names[field.index], kind: .tooLong(bytes: textLength, limit: textLimit)))
                    } else {
                        if fields.values[field.index] != nil {
                            fields.notes.append(FieldNote(field: schema.names[field.index], kind: .repeated))
                        }
                        fields.values[field.index] = String(decoding: buffer, as: UTF8.self)
                    }
                }
                capturing = false
            }
            return
        }
        if capturing && textLength <= textLimit {  // an over-long envelope leaf reads as absent
            leaves[path.joined(separator: "/")] = String(decoding: buffer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        capturing = false
        if !path.isEmpty { path.removeLast() }
    }

    mutating func text(_ ch: UnsafePointer<xmlChar>, _ count: Int) {
        guard capturing else { return }
        textLength += count
        if textLength <= textLimit { buffer.append(contentsOf: UnsafeBufferPointer(start: ch, count: count)) }
    }
}

// MARK: - Declared encodings

/// Whether a document that declares a single-byte or legacy encoding (ISO-8859-1, EUC-KR …)
/// actually holds UTF-8 text: every byte sequence valid UTF-8 and some of it beyond ASCII. Read
/// as declared, each such character would become two or three wrong ones (`ì¢…ë¡œêµ¬` for
/// `종로구`) in every value, station names included, so the document is refused rather than
/// loaded garbled. Legacy text is almost never valid UTF-8 (Korean EUC-KR leads are mostly
/// continuation bytes), so real EUC-KR and Latin-1 documents pass. Only documents libxml2
/// reads (the scanner takes UTF-8 ones) are fed through it, a chunk at a time.
struct DeclaredEncodingCheck {
    /// The encoding the XML declaration names.
    let declared: String
    private var pending = 0
    private var valid = true
    private var sawMultibyte = false

    /// Nil when the head declares no encoding, or UTF-8 (or ASCII): nothing to check.
    init?(head: Data) {
        guard let name = PayloadEncoding.declaredEncoding([UInt8](head.prefix(PayloadEncoding.headLength))) else { return nil }
        let normal = name.uppercased().replacingOccurrences(of: "_", with: "-")
        guard !["UTF-8", "UTF8", "US-ASCII", "ASCII"].contains(normal) else { return nil }
        declared = name
    }

    mutating func feed(_ chunk: Data) {
        guard valid else { return }
        for byte in chunk {
            if pending > 0 {
                guard byte & 0xC0 == 0x80 else { valid = false; return }
                pending -= 1
            } else if byte < 0x80 {
                continue
            } else if (0xC2...0xDF).contains(byte) {
                pending = 1; sawMultibyte = true
            } else if (0xE0...0xEF).contains(byte) {
                pending = 2; sawMultibyte = true
            } else if (0xF0...0xF4).contains(byte) {
                pending = 3; sawMultibyte = true
            } else {
                valid = false; return
            }
        }
    }

    /// The sentence refusing the document when it turned out to be UTF-8 text; nil otherwise.
    var misdeclaration: String? {
        guard valid, pending == 0, sawMultibyte else { return nil }
        let shown = String(declared.prefix(40).filter { $0.isASCII && !$0.isNewline })
        return "The document declares encoding \(shown), but its bytes are UTF-8 text; read as \(shown) every non-ASCII character would be garbled, so nothing is loaded. The server mis-declared it."
    }
}
