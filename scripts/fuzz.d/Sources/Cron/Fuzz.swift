// libFuzzer target: CronExpression(parsing:) on the input as text, as a pipeline's `schedule`
// field reaches it; an accepted expression is then scheduled in Asia/Seoul and in a zone with
// daylight saving (next and previous fire times, a day's fire times). CronParseError is the
// parser's answer to bad input; only crashes, hangs and sanitizer reports are failures.
import Foundation
import FuzzDriver
import Pipeline

let seoul = TimeZone(identifier: "Asia/Seoul")!
let newYork = TimeZone(identifier: "America/New_York")!
/// 2025-03-09 06:30 UTC: an hour before New York springs forward.
let instant = Date(timeIntervalSince1970: 1_741_501_800)
/// Keeps the work observable so the optimiser cannot drop it.
nonisolated(unsafe) var sink = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let expression = try? CronExpression(parsing: text) else { return 0 }
    sink &+= expression.fieldsText.utf8.count &+ (expression.isFixedTime ? 1 : 0)
    for zone in [seoul, newYork] {
        let schedule = CronSchedule(expression: expression, timeZone: zone)
        if let next = schedule.nextFireTime(after: instant) { sink &+= Int(next.timeIntervalSince1970) }
        if let previous = schedule.previousFireTime(atOrBefore: instant) { sink &+= Int(previous.timeIntervalSince1970) }
        sink &+= schedule.fireTimes(after: instant, through: instant.addingTimeInterval(86_400), newest: 100).times.count
    }
    return 0
}

@main enum Main {
    static func main() { exit(feedline_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv)) }
}
