#if canImport(Glibc)
import Glibc
#endif
import UserDebugCLI

exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
