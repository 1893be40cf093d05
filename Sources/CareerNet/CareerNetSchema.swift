import Pipeline

/// CareerNet's tables: schools, university majors with their departments, and the job
/// dictionary.
public enum CareerNetSchema {
    public static let declarations = SchemaDeclarations(tables: [school, major, majorDepartment, jobInfo])

    /// A school or university campus (svcCode=SCHOOL). school_key is CareerNet's `seq` verbatim
    /// and opaque ('302.0' stays '302.0'); an item without a seq gets 'name:<region>/<name>/<campus>'.
    static let school = TableDeclaration("school", "A CareerNet school or university campus", columns: [
        ColumnDeclaration("school_key", .text, "CareerNet seq verbatim (opaque); 'name:<region>/<name>/<campus>' when the item had none"),
        ColumnDeclaration("list", .text, "CareerNet list (gubun): elem_list, midd_list, high_list, univ_list, seet_list, alte_list"),
        ColumnDeclaration("name", .text, notNull: true, "School name (schoolName)"),
        ColumnDeclaration("campus", .text, "Campus (campusName): 본교, 제2캠퍼스 … (universities)"),
        ColumnDeclaration("category", .text, "School category (schoolGubun): 대학(4년제), 전문대학, 일반고 …"),
        ColumnDeclaration("kind", .text, "School type (schoolType): 일반대학 …"),
        ColumnDeclaration("establishment", .text, "Founded by (estType): 국립, 공립, 사립"),
        ColumnDeclaration("region", .text, "Province (시도) as CareerNet publishes it, official name: 서울특별시; joins province_alias.name"),
        ColumnDeclaration("address", .text, "Address (adres)"),
        ColumnDeclaration("homepage", .text, "Web site (link)"),
        ColumnDeclaration("college_info_url", .text, "College information page (collegeinfourl)"),
        .payloadSHA256,
        .revision,
    ], key: ["school_key"], indexes: [
        IndexDeclaration("school_by_region", on: ["region", "list"]),
    ])

    /// A university major (svcCode=MAJOR, gubun=univ_list), keyed by majorSeq.
    static let major = TableDeclaration("major", "A CareerNet university major", columns: [
        ColumnDeclaration("major_seq", .text, "CareerNet majorSeq"),
        ColumnDeclaration("field", .text, "Field of study (lClass, 계열)"),
        ColumnDeclaration("name", .text, "Major (mClass, 학과명)"),
        .payloadSHA256,
        .revision,
    ], key: ["major_seq"])

    /// facilName (a comma-joined list) normalised: one row per detailed department, in
    /// published order.
    static let majorDepartment = TableDeclaration("major_department", "One detailed department of a major (facilName split), in published order", columns: [
        ColumnDeclaration("major_seq", .text, notNull: true, references: ForeignKey("major", ["major_seq"], onDelete: .cascade), "major.major_seq"),
        ColumnDeclaration("ordinal", .integer, notNull: true, check: [.predicate(">= 1")], "Position in facilName, from 1"),
        ColumnDeclaration("name", .text, notNull: true, "Department name"),
    ], key: ["major_seq", "ordinal"], unique: [["major_seq", "name"]], indexes: [
        IndexDeclaration("major_department_by_name", on: ["name"]),
    ])

    /// A job-dictionary entry (svcCode=JOB, gubun=job_dic_list), keyed by jobdicSeq.
    static let jobInfo = TableDeclaration("job_info", "A CareerNet job-dictionary entry", columns: [
        ColumnDeclaration("job_seq", .text, "CareerNet jobdicSeq"),
        ColumnDeclaration("name", .text, "Job (job)"),
        ColumnDeclaration("profession", .text, "Profession"),
        ColumnDeclaration("similar_jobs", .text, "Similar jobs as published (similarJob)"),
        ColumnDeclaration("summary", .text, "Summary"),
        ColumnDeclaration("equal_employment", .text, "Equal employment text (equalemployment)"),
        ColumnDeclaration("possibility", .text, "Possibility text"),
        ColumnDeclaration("prospect", .text, "Prospect text"),
        ColumnDeclaration("salary", .text, "Salary text from the API's misspelt salery, e.g. '4000 만원 이상'"),
        ColumnDeclaration("job_code", .text, "Job code"),
        ColumnDeclaration("category_code", .text, "Job category code (job_ctg_code)"),
        ColumnDeclaration("aptitude_type_code", .text, "Aptitude type code (aptd_type_code)"),
        .payloadSHA256,
        .revision,
    ], key: ["job_seq"])
}
