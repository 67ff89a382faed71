#if canImport(Glibc)
    import Glibc
#endif

/// `USERDEBUG_DISABLE`: the speed mechanisms turned off for diagnosis, a comma list of names
/// (`all` for every one; docs/diagnosis.md). Each is a way to do the same thing faster, and each
/// turned off leaves the slower way that always works: a suspected bug in one can be ruled in
/// or out by turning it off. The variable is read once per process (the first question), so the
/// checks on the hotkey path cost a load and a test. The mechanisms written in C (`resident`,
/// `globals-cache`) are answered by CShared's `ud_disabled`, from the same variable. (Bit 2 was
/// `timer-connect`, deleted by issue 22's audit: it saved 5%, under the 10% a mechanism must save.)
public struct DisabledMechanisms: OptionSet, Sendable, Hashable {
    /// One bit a mechanism.
    public let rawValue: UInt32
    /// The mechanisms whose bits `rawValue` sets.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The resident owners: a copy hands its content to our process already serving (C).
    public static let resident = DisabledMechanisms(rawValue: 1 << 0)
    /// The Wayland globals cache file, `<socket>.userdebug-globals-UID` (C).
    public static let globalsCache = DisabledMechanisms(rawValue: 1 << 1)
    /// The copy of the current session beside the store (`CurrentSessionCache`).
    public static let sessionCache = DisabledMechanisms(rawValue: 1 << 3)
    /// `userdebug copy`'s input read into one reserved mapping (`HeapBytes`).
    public static let largeBuffer = DisabledMechanisms(rawValue: 1 << 4)
    /// The hotkey daemon's in-process clipboard owner (`X11SelectionHost`).
    public static let hostedOwner = DisabledMechanisms(rawValue: 1 << 5)

    /// Every name the variable takes, in the order the documents list them.
    public static let names: [(name: String, mechanism: DisabledMechanisms)] = [
        ("resident", .resident), ("globals-cache", .globalsCache), ("session-cache", .sessionCache),
        ("large-buffer", .largeBuffer), ("hosted-owner", .hostedOwner),
    ]

    /// The mechanisms `list` names, and the words in it that name none (`all` names every one).
    public static func parse(_ list: String) -> (disabled: DisabledMechanisms, unknown: [String]) {
        var disabled: DisabledMechanisms = []
        var unknown: [String] = []
        for word in list.split(whereSeparator: { $0 == "," || $0 == " " }) {
            if word == "all" {
                disabled.formUnion(DisabledMechanisms(names.map(\.mechanism)))
            } else if let known = names.first(where: { $0.name == word }) {
                disabled.insert(known.mechanism)
            } else {
                unknown.append(String(word))
            }
        }
        return (disabled, unknown)
    }

    /// What `USERDEBUG_DISABLE` names in this process, read once.
    public static let current: DisabledMechanisms = {
        guard let value = getenv("USERDEBUG_DISABLE") else { return [] }
        return parse(String(cString: value)).disabled
    }()

    /// Whether `USERDEBUG_DISABLE` turns `mechanism` off in this process.
    @inline(__always)
    public static func isOff(_ mechanism: DisabledMechanisms) -> Bool { !current.isDisjoint(with: mechanism) }
}
