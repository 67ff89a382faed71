import Testing
import UserDebugKit

/// `clipboard.handOffAtOnce` and `clipboard.reuseOwner` have their defaults in `OwnerPolicy`
/// (beside `CopyOptions`, used by both backends); the shipped config/config.json writes them
/// out, so it must say what the backends do without it.
@Test func theShippedConfigsOwnerChoicesAreTheBackendsDefaults() throws {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/UserDebugKitTests/ThisFile.swift
    let path = (parts + ["config", "config.json"]).joined(separator: "/")
    let chosen = try Config.load(path: path).clipboardOwner
    let policy = OwnerPolicy()
    #expect(chosen == Config.ClipboardOwner(handOffAtOnce: policy.handOffAtOnce, reuseOwner: policy.reuseOwner))
    #expect(policy.reuseOwner, "the hotkey path's latency depends on the resident owner")
}
