import Domain
import GRDB
import Pipeline

extension GRDBLoadSession {
    /// Writes CareerNet and Saramin records.
    func writeCareer(_ record: CareerRecord, payload: RawPayload?) throws -> WriteOutcome {
        switch record {}
    }
}
