import GRDB

extension FeedlineMigrations {
    /// Career tables (migration `v2-careers`): CareerNet schools, majors (+ departments) and the
    /// job dictionary; Saramin job postings with one child table per multi-valued field and the
    /// history of each posting's open/close status.
    ///
    /// Conventions as in v1: natural keys, `revision` counts changes after the insert,
    /// `payload_sha256` names the payload that last changed a row, NULL means missing (never
    /// `""`), instants are UTC ISO-8601 (`2021-09-27T09:17:21Z`).
    static let careerV2 = """
    -- CareerNet schools (svcCode=SCHOOL): one row per campus. school_key is CareerNet's `seq`
    -- verbatim and opaque ('302.0' stays '302.0'); an item without a seq gets 'name:<region>/<name>/<campus>'.
    CREATE TABLE school (
        school_key      TEXT PRIMARY KEY,
        list            TEXT,                   -- gubun: elem_list, midd_list, high_list, univ_list, seet_list, alte_list
        name            TEXT NOT NULL,          -- schoolName
        campus          TEXT,                   -- campusName: 본교, 제2캠퍼스 … (universities)
        category        TEXT,                   -- schoolGubun: 대학(4년제), 전문대학, 일반고 …
        kind            TEXT,                   -- schoolType: 일반대학 …
        establishment   TEXT,                   -- estType: 국립, 공립, 사립
        region          TEXT,                   -- province as published: 서울특별시 …
        address         TEXT,                   -- adres
        homepage        TEXT,                   -- link
        college_info_url TEXT,                  -- collegeinfourl
        payload_sha256  TEXT,
        revision        INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX school_by_region ON school (region, list);

    -- CareerNet majors (svcCode=MAJOR, gubun=univ_list), keyed by majorSeq.
    CREATE TABLE major (
        major_seq       TEXT PRIMARY KEY,
        field           TEXT,                   -- lClass: 계열
        name            TEXT,                   -- mClass: 학과명
        payload_sha256  TEXT,
        revision        INTEGER NOT NULL DEFAULT 0
    );
    -- facilName (a comma-joined list) normalised: one row per detailed department, in published order.
    CREATE TABLE major_department (
        major_seq       TEXT NOT NULL REFERENCES major (major_seq) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
        name            TEXT NOT NULL,
        PRIMARY KEY (major_seq, ordinal),
        UNIQUE (major_seq, name)
    );
    CREATE INDEX major_department_by_name ON major_department (name);

    -- CareerNet job dictionary (svcCode=JOB, gubun=job_dic_list), keyed by jobdicSeq.
    CREATE TABLE job_info (
        job_seq         TEXT PRIMARY KEY,
        name            TEXT,                   -- job
        profession      TEXT,
        similar_jobs    TEXT,                   -- similarJob, as published
        summary         TEXT,
        equal_employment TEXT,                  -- equalemployment
        possibility     TEXT,
        prospect        TEXT,
        salary          TEXT,                   -- the API's `salery` (sic), e.g. '4000 만원 이상'
        job_code        TEXT,
        category_code   TEXT,                   -- job_ctg_code
        aptitude_type_code TEXT,                -- aptd_type_code
        payload_sha256  TEXT,
        revision        INTEGER NOT NULL DEFAULT 0
    );

    -- Saramin job postings, keyed by Saramin's posting number. A posting that changes is updated
    -- in place (revision + 1); expires_at is NULL when Saramin published a far-future
    -- "no deadline" sentinel (open_ended = 1), and the close type says why.
    CREATE TABLE job_posting (
        posting_id      TEXT PRIMARY KEY,
        url             TEXT,
        active          INTEGER CHECK (active IN (0, 1)),
        company         TEXT,
        company_url     TEXT,
        title           TEXT,
        industry_code   TEXT,
        industry_name   TEXT,
        experience_code INTEGER CHECK (experience_code >= 0),  -- 0 경력무관, 1 신입, 2 경력, 3 신입/경력
        experience_min_years INTEGER CHECK (experience_min_years >= 0),
        experience_max_years INTEGER CHECK (experience_max_years >= 0),
        experience_name TEXT,
        education_code  TEXT,
        education_name  TEXT,
        salary_code     TEXT,
        salary_name     TEXT,                   -- NULL when Saramin sent only a code
        posted_at       TEXT,                   -- UTC
        modified_at     TEXT,                   -- UTC; the incremental bookmark follows it
        opens_at        TEXT,                   -- UTC
        expires_at      TEXT,                   -- UTC; NULL = no deadline
        open_ended      INTEGER NOT NULL DEFAULT 0 CHECK (open_ended IN (0, 1)),
        close_type_code TEXT,                   -- 1 접수마감일, 2 채용시, 3 상시, 4 수시
        close_type_name TEXT,
        payload_sha256  TEXT,
        revision        INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX job_posting_by_modified ON job_posting (modified_at);

    -- Multi-valued fields, one row per value in published order. Codes and names are paired in
    -- one row only when their counts agree; otherwise codes come first (name NULL), then names
    -- (code NULL): lists of different lengths are never zipped.
    CREATE TABLE job_posting_location (
        posting_id      TEXT NOT NULL REFERENCES job_posting (posting_id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
        code            TEXT,                   -- 101010
        name            TEXT,                   -- 서울 > 강남구 (&gt; unescaped)
        province        TEXT,                   -- 서울: the part of the name before '>'
        PRIMARY KEY (posting_id, ordinal),
        CHECK (code IS NOT NULL OR name IS NOT NULL)
    );
    CREATE INDEX job_posting_location_by_province ON job_posting_location (province);
    CREATE TABLE job_posting_job_type (
        posting_id      TEXT NOT NULL REFERENCES job_posting (posting_id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
        code            TEXT,
        name            TEXT,
        PRIMARY KEY (posting_id, ordinal),
        CHECK (code IS NOT NULL OR name IS NOT NULL)
    );
    CREATE TABLE job_posting_job_mid_code (
        posting_id      TEXT NOT NULL REFERENCES job_posting (posting_id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
        code            TEXT,
        name            TEXT,
        PRIMARY KEY (posting_id, ordinal),
        CHECK (code IS NOT NULL OR name IS NOT NULL)
    );
    CREATE TABLE job_posting_job_code (
        posting_id      TEXT NOT NULL REFERENCES job_posting (posting_id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
        code            TEXT,
        name            TEXT,
        PRIMARY KEY (posting_id, ordinal),
        CHECK (code IS NOT NULL OR name IS NOT NULL)
    );
    CREATE INDEX job_posting_job_code_by_code ON job_posting_job_code (code);
    CREATE TABLE job_posting_job_category (
        posting_id      TEXT NOT NULL REFERENCES job_posting (posting_id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
        code            TEXT,
        name            TEXT,
        PRIMARY KEY (posting_id, ordinal),
        CHECK (code IS NOT NULL OR name IS NOT NULL)
    );
    CREATE TABLE job_posting_keyword (
        posting_id      TEXT NOT NULL REFERENCES job_posting (posting_id) ON DELETE CASCADE,
        ordinal         INTEGER NOT NULL CHECK (ordinal >= 1),
        keyword         TEXT NOT NULL,
        PRIMARY KEY (posting_id, ordinal)
    );

    -- A posting's open/close status over time: a row is appended when a posting is first seen
    -- and whenever active, close type or expiration changes (never on an unchanged re-load).
    CREATE TABLE job_posting_status_history (
        id              INTEGER PRIMARY KEY,
        posting_id      TEXT NOT NULL REFERENCES job_posting (posting_id) ON DELETE CASCADE,
        run_id          INTEGER NOT NULL REFERENCES run (id),
        modified_at     TEXT,                   -- the posting's modification time when seen
        active          INTEGER CHECK (active IN (0, 1)),
        close_type_code TEXT,
        close_type_name TEXT,
        expires_at      TEXT,
        open_ended      INTEGER NOT NULL CHECK (open_ended IN (0, 1))
    );
    CREATE INDEX job_posting_status_history_by_posting ON job_posting_status_history (posting_id, id);
    """
}
