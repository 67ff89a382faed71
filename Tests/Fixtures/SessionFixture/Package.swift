// swift-tools-version:6.0
import PackageDescription

// An example app that tells userdebug who is logged in, as README's "A Swift app" section shows:
// it logs in to its backend with URLSession, then calls UserDebugSession.loggedIn (debug builds
// only); `logout` calls UserDebugSession.loggedOut. AppSessionTests build it, run it against the
// echo server, and read its user with `userdebug copy-id`.
let package = Package(
    name: "SessionFixture",
    dependencies: [.package(name: "userdebug", path: "../../..")],
    targets: [
        .executableTarget(
            name: "SessionApp",
            dependencies: [.product(name: "UserDebugCapture", package: "userdebug")]
        )
    ],
    swiftLanguageModes: [.v6]
)
