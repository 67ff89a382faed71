#if canImport(Glibc)
    import Glibc
#endif

/// The arguments as the kernel handed them over, for the one thing `CommandLine.arguments` hides:
/// Swift repairs an argument that is not UTF-8 into U+FFFD, so `session set --id $'\xff'` would
/// record a character nobody typed. Argument values are held to the rule every input document
/// is held to: UTF-8 or exit 65, naming the argument.
enum RawArguments {
    /// The first of `arguments` (argv without the program name) whose bytes in this process's
    /// argv are not UTF-8: its index in `arguments` and those bytes. nil when all are UTF-8, or
    /// when `arguments` is not this process's argv (a daemon action, a test calling the CLI).
    static func firstInvalidUTF8(in arguments: [String]) -> (index: Int, bytes: [UInt8])? {
        let count = Int(CommandLine.argc)
        guard count - 1 == arguments.count, count > 1 else { return nil }
        let argv = CommandLine.unsafeArgv
        for position in 1..<count {
            guard let raw = argv[position] else { continue }
            // The common case costs one pass over the bytes: all ASCII.
            var cursor = UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self)
            while cursor.pointee != 0 && cursor.pointee < 0x80 { cursor += 1 }
            if cursor.pointee == 0 { continue }
            guard String(validatingCString: raw) == nil else { continue }
            // Only an argument that was repaired into this very string is ours to refuse.
            guard String(cString: raw) == arguments[position - 1] else { return nil }
            let bytes = UnsafeRawBufferPointer(start: raw, count: strlen(raw))
            return (position - 1, Array(bytes))
        }
        return nil
    }

    /// The error for `arguments[index]`, whose bytes are `bytes`: it names the option the value
    /// belongs to (or the argument's position) and shows the bytes with the bad ones escaped.
    static func invalidUTF8Error(in arguments: [String], index: Int, bytes: [UInt8]) -> CommandError {
        let argument = arguments[index]
        let what: String
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            what = "the value of '\(argument[..<equals])'"
        } else if index > 0, arguments[index - 1].hasPrefix("--"), !arguments[index - 1].contains("=") {
            what = "the value of '\(arguments[index - 1])'"
        } else {
            what = "argument \(index + 1)"
        }
        return CommandError(
            .dataError, "\(what) is not valid UTF-8 ('\(escaped(bytes))'); arguments are text in UTF-8")
    }

    /// `bytes` with printable ASCII as it is and every other byte as `\xHH`.
    private static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7f && byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = String(byte, radix: 16)
                text += "\\x" + (digits.count == 1 ? "0" : "") + digits
            }
        }
        return text
    }
}
