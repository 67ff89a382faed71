// swift-tools-version:6.0
import PackageDescription

// A host app that integrates userdebug's debug menu as DebugMenuInteraction's documentation asks:
// the debug code behind `#if DEBUG`. MenuReleaseBuildTests builds it in debug and release and
// looks for the debug-menu symbols and strings in each binary.
let package = Package(
    name: "DebugMenuFixture",
    dependencies: [.package(name: "userdebug", path: "../../..")],
    targets: [
        .executableTarget(
            name: "FixtureApp",
            dependencies: [.product(name: "UserDebugKit", package: "userdebug")]
        )
    ],
    swiftLanguageModes: [.v6]
)
