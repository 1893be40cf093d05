/// Career records (CareerNet schools, majors, jobs; Saramin job postings).
public enum CareerRecord: Hashable, Sendable {}
