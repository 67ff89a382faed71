import Foundation
import Testing

/// `Scripts/deps.sh` installs only what building needs unless asked for the test tools
/// (`--test`, which `Scripts/test.sh` passes); `install.sh` and `demo.sh` use the lean set.
@Suite(.desktopTier) struct LeanDepsTests {
    static let script = InstallTests.root.appendingPathComponent("Scripts/deps.sh").path

    static func packages(_ arguments: [String]) throws -> [String] {
        let result = try InstallShell.run("/bin/bash", [script, "--list"] + arguments)
        #expect(result.status == 0, "\(result)")
        return result.out.split(separator: "\n").map(String.init)
    }

    @Test func theBuildSetHasNoTestTools() throws {
        let lean = try Self.packages([])
        #expect(lean.contains("libsqlite3-dev") && lean.contains("pkgconf") && lean.contains("libxft-dev"), "\(lean)")
        let full = try Self.packages(["--test"])
        for tool in [
            "xvfb", "zsh", "fish", "strace", "python3-xlib", "python3-venv", "cinnamon-settings-daemon", "sway", "jq",
        ] {
            #expect(!lean.contains(tool), "\(tool) is in the build set")
            #expect(full.contains(tool), "\(tool) is not in the test set")
        }
        #expect(Set(lean).isSubset(of: full), "the test set lacks build packages")
        let bench = try Self.packages(["--bench"])
        #expect(bench.contains("hyperfine") && Set(full).isSubset(of: bench))
    }

    /// Every header the C sources include comes from a build package or from one it depends on
    /// (or from libc and the compiler), so the lean set builds.
    @Test func everyIncludedHeaderComesWithTheBuildSet() throws {
        let lean = Set(try Self.packages([]))
        var provided = lean.union(["libc6-dev", "linux-libc-dev"])
        for package in lean {
            let depends = try InstallShell.run("/usr/bin/dpkg-query", ["-W", "-f=${Depends}", package])
            for clause in depends.out.split(separator: ",") {
                let name = clause.split(separator: " ").first.map(String.init) ?? ""
                provided.insert(name.split(separator: ":").first.map(String.init) ?? name)
            }
        }
        let sources = try FileManager.default.subpathsOfDirectory(
            atPath: InstallTests.root.appendingPathComponent("Sources").path
        ).filter { $0.hasSuffix(".c") || $0.hasSuffix(".h") }
        let include = try NSRegularExpression(pattern: #"(?m)^\s*#\s*include\s*<([^>]+)>"#)
        var headers: Set<String> = []
        for source in sources {
            let text = try String(
                contentsOf: InstallTests.root.appendingPathComponent("Sources/\(source)"), encoding: .utf8)
            for match in include.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                headers.insert(String(text[Range(match.range(at: 1), in: text)!]))
            }
        }
        #expect(headers.contains("xcb/xcb.h") && headers.contains("sqlite3.h"), "\(headers)")
        for header in headers.sorted() {
            let owner = try ["/usr/include/", "/usr/include/x86_64-linux-gnu/"].lazy.map {
                try InstallShell.run("/usr/bin/dpkg", ["-S", $0 + header])
            }.first { $0.status == 0 }
            // Not in a package: the compiler's own (stddef.h, stdarg.h).
            guard let owner, let package = owner.out.split(separator: ":").first.map(String.init) else { continue }
            #expect(provided.contains(package), "<\(header)> comes from \(package), which the build set lacks")
        }
    }

    /// The lean run makes no Python venv; the scripts ask for the set they need.
    @Test func theLeanRunMakesNoVenvAndEachScriptAsksForItsSet() throws {
        let directory = try InstallTemporaryDirectory()
        try directory.write("Scripts/deps.sh", try String(contentsOfFile: Self.script, encoding: .utf8), mode: 0o755)
        let lean = try InstallShell.run("/bin/bash", [directory.url.appendingPathComponent("Scripts/deps.sh").path])
        #expect(lean.status == 0, "\(lean)")
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent(".build/pyenv").path))
        func calls(_ script: String) throws -> [String] {
            try String(contentsOf: InstallTests.root.appendingPathComponent("Scripts/\(script)"), encoding: .utf8)
                .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { $0.hasPrefix("Scripts/deps.sh") }
        }
        #expect(try calls("install.sh").allSatisfy { $0.hasPrefix("Scripts/deps.sh  #") || $0 == "Scripts/deps.sh" })
        #expect(try calls("demo.sh").allSatisfy { $0.hasPrefix("Scripts/deps.sh  #") || $0 == "Scripts/deps.sh" })
        #expect(try !calls("install.sh").isEmpty && !calls("demo.sh").isEmpty)
        #expect(try calls("test.sh").contains { $0.hasPrefix("Scripts/deps.sh --test") })
    }
}
