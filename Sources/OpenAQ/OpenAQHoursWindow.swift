import Foundation

/// The time window one `/v3/sensors/{id}/hours` call asks for, and how a sensor's bookmark moves
/// it forward. Pure: the feed's request planning and the hourly writers use it, property tests
/// check it.
///
/// OpenAQ filters hourly rows by the end of their hour: `datetime_from` is exclusive and
/// `datetime_to` inclusive, so the window `(from, to]` holds exactly the hours ending after
/// `from` and no later than `to`, and two windows `(a, b]`, `(b, c]` neither overlap nor leave a
/// gap. Both are sent as UTC with an explicit `Z` (`OpenAQTime.format`).
///
/// Resuming: each sensor's bookmark is the instant its hours have been read up to — the end of
/// the newest hour loaded, or the end of a window already asked for, whichever is later, but
/// never after the moment the window was fetched (hours not yet computed then were not seen).
/// The next window starts `overlap` before the bookmark, so hours OpenAQ completes or corrects
/// late are read again (an unchanged hour loads as unchanged), and never before the pipeline's
/// `datetime_from`. A window is at most `window` long (OpenAQ times out on long ranges), so a
/// sensor far behind catches up one window per run; a window reaching into the future simply
/// returns the hours there are.
///
/// A window with no hours moves its sensor's bookmark only when its answer is loaded, and
/// feedline loads the same bytes once: OpenAQ's empty page is identical for every sensor and
/// window, so after the first one an empty window leaves the bookmark where it was. Anchor
/// `datetime_from` to the calendar (`{yesterday}T00:00:00+09:00`, as the bundled pipeline
/// does) with `window − overlap` above 48 hours, and every window reaches the present: no
/// sensor can stall. A backfill with a fixed `datetime_from` stops at a gap longer than the
/// window (raise `window_hours`, or move `datetime_from` past the gap).
public struct OpenAQHoursWindow: Sendable, Hashable, CustomStringConvertible {
    /// Exclusive start (`datetime_from`), whole seconds.
    public let from: Date
    /// Inclusive end (`datetime_to`), whole seconds, after `from`.
    public let to: Date

    /// A window `(from, to]`; nil unless `from` comes before `to`. Both are rounded down to whole
    /// seconds.
    public init?(from: Date, to: Date) {
        let f = Self.whole(from), t = Self.whole(to)
        guard f < t else { return nil }
        self.from = f
        self.to = t
    }

    /// `datetime_from` as sent: `YYYY-MM-DDTHH:MM:SSZ`.
    public var datetimeFrom: String { OpenAQTime.format(from) }
    /// `datetime_to` as sent: `YYYY-MM-DDTHH:MM:SSZ`.
    public var datetimeTo: String { OpenAQTime.format(to) }

    /// Whether an hour ending at `periodEnd` falls in the window (`from < periodEnd ≤ to`).
    public func contains(periodEnd: Date) -> Bool { from < periodEnd && periodEnd <= to }

    public var description: String { "(\(datetimeFrom), \(datetimeTo)]" }

    /// The window a sensor's next call asks for: from `bookmark − overlap` (never before
    /// `start`; `start` itself without a bookmark), at most `window` long, never past `end`.
    /// nil when nothing is left to ask for: the bookmark or the start has reached `end`.
    ///
    /// - Parameters:
    ///   - start: the pipeline's `datetime_from` (exclusive).
    ///   - end: the pipeline's `datetime_to` (inclusive), or nil for no end.
    ///   - bookmark: how far the sensor's hours have been read (`scannedThrough`), or nil.
    ///   - window: the longest window, > 0.
    ///   - overlap: how much of what was read is asked for again, ≥ 0.
    public static func next(start: Date, end: Date?, bookmark: Date?, window: TimeInterval, overlap: TimeInterval) -> OpenAQHoursWindow? {
        precondition(window > 0 && overlap >= 0, "a window is longer than 0 and an overlap is not negative")
        // Read through the end already: the overlap is not asked for again and again.
        if let end, let bookmark, whole(bookmark) >= whole(end) { return nil }
        let start = whole(start)
        let from = bookmark.map { max(start, whole($0) - overlap) } ?? start
        var to = from + window
        if let end { to = min(to, whole(end)) }
        return OpenAQHoursWindow(from: from, to: to)
    }

    /// How far a fetched window has been read: its end, but never after `fetchedAt`.
    public static func scannedThrough(windowEnd: Date, fetchedAt: Date) -> Date {
        min(whole(windowEnd), whole(fetchedAt))
    }

    /// `instant` rounded down to a whole second.
    static func whole(_ instant: Date) -> Date {
        Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.down))
    }
}
