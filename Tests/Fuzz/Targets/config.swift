// libFuzzer target: the config reader (config.json). Whatever the bytes, reading the file returns
// a configuration or throws a ConfigError; it never traps.
import UserDebugKit

/// Called by libFuzzer with one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    do {
        _ = try Config.parse(bytes, file: "config.json")
    } catch {
        _ = error.description
    }
    return 0
}
