import UserDebugCLI

#if canImport(Glibc)
    import Glibc
#endif

// `userdebug-popup [--session NAME] [--reveal] [--trace]`: the debug menu as a popup window at the
// pointer; `userdebug menu --popup` runs this program. The chosen entry's payload goes to the
// clipboard; see PopupHost for the lifecycle and the exit statuses.
let started = monotonicNow()
exit(
    PopupHost.run(Array(CommandLine.arguments.dropFirst())) { host in try PopupApp(host: host, started: started).run() }
)
