import UserDebugKit

#if canImport(Glibc)
    import Glibc
#endif

/// After setup: one binding tried the way the desktop would try it, and the clipboard read back.
enum SetupCheck {
    static func verify(_ plan: SetupPlan, _ invocation: Invocation) throws {
        guard let binding = plan.bindings.first(where: { $0.action != HotkeyBinding.menuAction }) else {
            return try SetupCommand.out("check: no copying key to try (only the menu)\n")
        }
        let environment = invocation.environment
        // What the action gives now, on stdout: what the clipboard must hold after the key.
        let expected: ProcessRunner.Result
        do {
            expected = try ProcessRunner(timeout: 20).run(
                [SetupPlanner.binary, "run", binding.action, "--to", "stdout"], environment: environment)
        } catch {
            return try SetupCommand.out("check: not tried: \(binding.action) could not run (\(error))\n")
        }
        guard expected.termination == .exited(0) else {
            let why = String(decoding: expected.stderr, as: UTF8.self).trimmingNewlines
            return try SetupCommand.out(
                "check: \(binding.key) not tried: \(binding.action) has nothing to copy yet (\(why))\n"
                    + "  do what it says, then press \(binding.key)\n")
        }
        let want = String(decoding: expected.stdout, as: UTF8.self).trimmingNewlines
        let how: String
        if let command = plan.commandOf(binding) {
            // The binding's own command, through a shell as the WM runs it.
            guard SetupPlanner.run(["/bin/sh", "-c", command], environment, timeout: 20) == 0 else {
                throw CommandError(.unavailable, "check: the command of \(binding.key) failed: \(command)")
            }
            how = "ran \(binding.key)'s command"
        } else {
            guard SetupPlanner.run(["sh", "-c", "command -v xdotool"], environment) == 0 else {
                return try SetupCommand.out(
                    "check: press \(binding.key) and paste: it copies \(binding.action) (setup presses it itself when xdotool is installed)\n"
                )
            }
            how = "pressed \(binding.key) (xdotool)"
        }
        // The daemon may be reloading a changed config: the key is pressed again until it answers.
        let deadline = monotonicSeconds() + 10
        var got = ""
        repeat {
            if plan.commandOf(binding) == nil {
                SetupPlanner.run(["xdotool", "key", "--clearmodifiers", KeySpelling.xdotool(binding.key)], environment)
            }
            let route = try invocation.clipboard()
            if let bytes = try? route.paste(selection: .clipboard, target: "UTF8_STRING", timeout: 2) {
                got = String(decoding: bytes, as: UTF8.self).trimmingNewlines
                if got == want {
                    return try SetupCommand.out("check: \(how); the clipboard holds \(binding.action)'s result\n")
                }
            }
            usleep(300_000)
        } while monotonicSeconds() < deadline
        throw CommandError(
            .unavailable,
            "check: \(how), but the clipboard does not hold \(binding.action)'s result (it holds \(got.count) other bytes); "
                + "what setup changed is undone by: userdebug setup --undo")
    }
}

/// `setup --undo`: the manifest's files back as they were, its commands run, the daemon stopped.
enum SetupUndo {
    static func run(_ invocation: Invocation, dryRun: Bool) throws {
        let directory = SetupCommand.manifestDirectory(invocation)
        guard let manifest = try SetupManifest.load(directory) else {
            return try SetupCommand.out("nothing to undo: setup has changed nothing (no \(directory)/manifest.json)\n")
        }
        var left: [String] = []
        if !dryRun, let display = manifest.daemonDisplay {
            stopDaemon(display: display, invocation)
        }
        for file in manifest.files.reversed() {
            let current = try SetupFiles.read(file.path)
            let written = try SetupFiles.read(directory + "/" + file.written)
            if let current, current.bytes != written?.bytes {
                left.append(file.path)
                continue
            }
            if let original = file.original {
                guard let saved = try SetupFiles.read(directory + "/" + original) else {
                    left.append(file.path)
                    continue
                }
                if !dryRun { try SetupFiles.write(file.path, saved.bytes, mode: file.originalMode) }
                try SetupCommand.out("\(dryRun ? "would restore" : "restored") \(file.path)\n")
            } else {
                if !dryRun { try SetupFiles.remove(file.path) }
                try SetupCommand.out("\(dryRun ? "would remove" : "removed") \(file.path)\n")
            }
        }
        // Newest first: a later setup's undo puts back what the earlier one left.
        for argv in manifest.undo.reversed() {
            let command = argv.map(shellQuoted).joined(separator: " ")
            if dryRun {
                try SetupCommand.out("would run \(command)\n")
                continue
            }
            let status = SetupPlanner.run(argv, invocation.environment)
            try SetupCommand.out("ran \(command)\(status == 0 ? "" : " (it failed; nothing else to undo there)")\n")
        }
        if dryRun { return }
        guard left.isEmpty else {
            throw CommandError(
                .config,
                "left as they are, changed since setup wrote them: \(left.joined(separator: ", ")); "
                    + "their originals are in \(directory) (manifest.json names each)")
        }
        for name in ["manifest.json", "daemon.log"]
            + manifest.files.flatMap({ [$0.written] + ($0.original.map { [$0] } ?? []) })
        {
            try SetupFiles.remove(directory + "/" + name)
        }
        rmdir(directory)
    }

    /// Stops the daemon on `display` if it runs this binary's `daemon` (a daemon of another
    /// binary is named and left).
    private static func stopDaemon(display: String, _ invocation: Invocation) {
        guard
            let pid = DaemonProcess.running(display: display, runtimeDirectory: invocation.variable("XDG_RUNTIME_DIR"))
        else { return }
        kill(pid, SIGTERM)
        let deadline = monotonicSeconds() + 5
        while monotonicSeconds() < deadline,
            DaemonProcess.running(display: display, runtimeDirectory: invocation.variable("XDG_RUNTIME_DIR")) != nil
        {
            usleep(20_000)
        }
        try? SetupCommand.out("stopped userdebug daemon (pid \(pid)) on \(display)\n")
    }
}

/// A unified diff of two texts with one changed region (what a merge makes): the common lines
/// before and after it kept as context.
enum LineDiff {
    static func unified(_ old: [UInt8], _ new: [UInt8], path: String) -> String {
        let a = String(decoding: old, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let b = String(decoding: new, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        let start = max(0, prefix - 2)
        let endA = min(a.count, a.count - suffix + 2)
        let endB = min(b.count, b.count - suffix + 2)
        var out = "--- \(path)\n+++ \(path) (as setup would write it)\n"
        out += "@@ -\(start + 1),\(endA - start) +\(start + 1),\(endB - start) @@\n"
        for line in a[start..<prefix] { out += " \(line)\n" }
        for line in a[prefix..<(a.count - suffix)] { out += "-\(line)\n" }
        for line in b[prefix..<(b.count - suffix)] { out += "+\(line)\n" }
        for line in a[(a.count - suffix)..<endA] { out += " \(line)\n" }
        return out
    }
}
