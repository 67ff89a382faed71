import Glibc
import Testing

@testable import UserDebugKit

/// The shipped `config/config.json`, which writes out every setting at its default and explains
/// each. If the loader or a default changes, these tests say the file must change too.
let shippedConfigPath: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/UserDebugKitTests/ThisFile.swift
    return (parts + ["config", "config.json"]).joined(separator: "/")
}()

/// Every default the kit owns is the one the file writes: `RetentionPolicy`, `Config.Output`,
/// `CopyOptions`, the redaction, actions and backend sections. The file's owner-process keys
/// default in `OwnerPolicy`; OwnerPolicyTests.swift checks them against it.
@Test func theShippedConfigMeansExactlyTheDefaults() throws {
    try #require(access(shippedConfigPath, R_OK) == 0, "\(shippedConfigPath)")
    let config = try Config.load(path: shippedConfigPath)
    #expect(config.retention == RetentionPolicy())
    #expect(config.output == Config.Output())
    #expect(config.clipboard == CopyOptions())
    #expect(config.clipboardBackend == .auto)
    #expect(
        config.clipboardOwner.handOffAtOnce != nil && config.clipboardOwner.reuseOwner != nil,
        "the file writes out the owner-process keys too")
    var kitSettings = config
    kitSettings.clipboardOwner = Config.ClipboardOwner()
    #expect(kitSettings == .defaults)
}
